import { SOMETHING_WENT_WRONG_TOAST } from "~/lib/newsletter-messages";

export type ToastType = "success" | "error" | "info" | "warning";

export interface ToastView {
  type: ToastType;
  message: string;
  description?: string;
}

/**
 * The flashed toast, rendered in the server HTML so it shows without JavaScript. The region is always present so the
 * enhancement script can put the next toast into it; a destructive toast is an alert, the others are a status.
 */
export function ToastRegion({ toast }: { toast: ToastView | null }) {
  return (
    <div
      id="toast-region"
      className="pointer-events-none fixed inset-x-0 bottom-0 z-50 flex flex-col items-center gap-2 p-4 sm:items-end"
    >
      {toast ? <Toast toast={toast} /> : null}
      {/* What the enhancement script shows when a submission gets no answer at all (offline, dropped connection). */}
      <template data-toast-fallback="">
        <Toast toast={SOMETHING_WENT_WRONG_TOAST} />
      </template>
    </div>
  );
}

export function Toast({ toast }: { toast: ToastView }) {
  const destructive = toast.type === "error";
  return (
    <div
      role={destructive ? "alert" : "status"}
      data-toast={toast.type}
      className={`toast pointer-events-auto relative w-full max-w-sm rounded-xl border p-4 pr-12 shadow-lg ${
        destructive ? "border-red-300 bg-red-50 text-red-950" : "border-slate-200 bg-white text-slate-900"
      }`}
    >
      <p className="font-semibold">{toast.message}</p>
      {toast.description ? <p className="mt-1 text-sm">{toast.description}</p> : null}
      {/* Without JavaScript the toast stays until the next page: this link is that next page. */}
      <a
        href="/"
        data-toast-close=""
        className="absolute right-2 top-2 inline-flex h-11 w-11 items-center justify-center rounded-full text-xl leading-none hover:bg-black/5"
      >
        <span aria-hidden="true">×</span>
        <span className="sr-only">Dismiss notification</span>
      </a>
    </div>
  );
}
