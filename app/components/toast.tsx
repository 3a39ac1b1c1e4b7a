import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type MouseEvent,
  type ReactNode,
} from "react";
import { createPortal } from "react-dom";
import { statusCopy } from "~/content/status-copy";
import type { ShownToast, ToastView } from "~/utils/toast-view";

const TOAST_VISIBLE_MS = 6_000;
const LEAVE_MS = 200;

interface ToastContextValue {
  toast: ShownToast | null;
  show: (toast: ToastView) => void;
  dismiss: (id: string) => void;
  /** Where toasts go instead of the page's region: an open modal dialog (the page behind it is inert). */
  host: HTMLElement | null;
  setHost: (host: HTMLElement | null) => void;
}

const ToastContext = createContext<ToastContextValue | null>(null);

let localToasts = 0;

/**
 * Holds the toast on screen. It starts with the toast the root loader read from the flash cookie (so the server HTML
 * already shows it), takes each newer flashed toast as the page revalidates, and lets the page show one of its own.
 */
export function ToastProvider({ flashed, children }: { flashed: ShownToast | null; children: ReactNode }) {
  const [toast, setToast] = useState<ShownToast | null>(flashed);
  const [host, setHost] = useState<HTMLElement | null>(null);

  useEffect(() => {
    if (flashed) setToast(flashed);
    // Keyed by id: a revalidation that flashes nothing must not take the current toast away.
  }, [flashed?.id]); // eslint-disable-line react-hooks/exhaustive-deps

  const show = useCallback((view: ToastView) => {
    localToasts += 1;
    setToast({ ...view, id: `local-${localToasts}` });
  }, []);
  const dismiss = useCallback((id: string) => setToast((current) => (current?.id === id ? null : current)), []);
  const value = useMemo(() => ({ toast, show, dismiss, host, setHost }), [toast, show, dismiss, host]);
  return <ToastContext.Provider value={value}>{children}</ToastContext.Provider>;
}

function useToastContext(): ToastContextValue {
  const context = useContext(ToastContext);
  if (!context) throw new Error("Toasts are used outside of <ToastProvider>");
  return context;
}

/** Shows a toast from the page itself (one the server could not send, such as "no answer at all"). */
export const useShowToast = () => useToastContext().show;

/** A ref callback for an element inside an open modal dialog: toasts show there while it exists. */
export function useToastHost(): (element: HTMLElement | null) => void {
  return useToastContext().setHost;
}

/** Classes for a toast host: where a toast sits on the screen, the same inside a dialog as on the page. */
export const TOAST_HOST_CLASS =
  "pointer-events-none fixed inset-x-0 bottom-0 z-50 flex flex-col items-center gap-2 p-4 sm:items-end";

/** The last element of every page's body: the document's head waits for it before the first paint (app/perf/). */
export const TOAST_REGION_ID = "toast-region";

/** The page's toast region; the toast moves into the open dialog's host while there is one. */
export function ToastRegion() {
  const { toast, dismiss, host } = useToastContext();
  const item = toast ? <Toast key={toast.id} toast={toast} onDismiss={() => dismiss(toast.id)} /> : null;
  return (
    <div id={TOAST_REGION_ID} className={TOAST_HOST_CLASS}>
      {host ? null : item}
      {host && item ? createPortal(item, host) : null}
    </div>
  );
}

/**
 * One toast: a destructive one is an alert, the others a status. Without JavaScript it stays until its close link
 * loads the page again; with JavaScript it dismisses itself after a few seconds, pausing while hovered or focused.
 */
function Toast({ toast, onDismiss }: { toast: ShownToast; onDismiss: () => void }) {
  const destructive = toast.type === "error";
  const [leaving, setLeaving] = useState(false);
  const [paused, setPaused] = useState(false);
  const dismissRef = useRef(onDismiss);
  dismissRef.current = onDismiss;

  const leave = useCallback(() => setLeaving(true), []);

  useEffect(() => {
    if (paused || leaving) return;
    const timer = window.setTimeout(leave, TOAST_VISIBLE_MS);
    return () => window.clearTimeout(timer);
  }, [paused, leaving, leave]);

  useEffect(() => {
    if (!leaving) return;
    const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    const timer = window.setTimeout(() => dismissRef.current(), reduced ? 0 : LEAVE_MS);
    return () => window.clearTimeout(timer);
  }, [leaving]);

  const close = (event: MouseEvent) => {
    event.preventDefault();
    leave();
  };

  return (
    <div
      role={destructive ? "alert" : "status"}
      data-toast={toast.type}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
      className={`toast toast-enter pointer-events-auto relative w-full max-w-sm rounded-xl border p-4 pr-12 shadow-lg ${
        destructive ? "border-danger-edge bg-danger-surface text-danger-ink" : "border-edge bg-raised text-ink"
      }${leaving ? " toast-leave" : ""}`}
    >
      <p className="font-semibold">{toast.message}</p>
      {toast.description ? <p className="mt-1 text-sm">{toast.description}</p> : null}
      {toast.note ? <p className="mt-1 text-sm font-semibold">{toast.note}</p> : null}
      {/* Without JavaScript the toast stays until the next page: this link is that next page. */}
      <a
        href="/"
        onClick={close}
        className="absolute right-2 top-2 inline-flex h-11 w-11 items-center justify-center rounded-full text-xl leading-none hover:bg-tint"
      >
        <span aria-hidden="true">×</span>
        <span className="sr-only">{statusCopy.dismissToast}</span>
      </a>
    </div>
  );
}
