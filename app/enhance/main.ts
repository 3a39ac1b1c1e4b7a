// The page is complete without JavaScript; this small script only enhances it (we do not hydrate React: see
// docs/decisions/002-no-hydration.md). It turns the newsletter popover into a modal dialog that submits in place,
// shows the busy state, and animates and auto-dismisses toasts.

import { SOMETHING_WENT_WRONG_TOAST } from "~/lib/newsletter-messages";

const TOAST_VISIBLE_MS = 6_000;

function enhanceDialog(dialog: HTMLDialogElement) {
  const opener = document.querySelector<HTMLButtonElement>(`[popovertarget="${dialog.id}"]:not([data-dialog-close])`);
  const form = dialog.querySelector<HTMLFormElement>("form[data-newsletter-form]");
  if (!opener || !form) return;

  // From here on it is a modal: focus moves in, Escape closes it, the page behind is inert.
  dialog.removeAttribute("popover");
  opener.removeAttribute("popovertarget");
  opener.setAttribute("aria-haspopup", "dialog");
  opener.addEventListener("click", () => {
    dialog.showModal();
    dialog.querySelector<HTMLInputElement>("input[type=email]")?.focus();
  });
  for (const close of dialog.querySelectorAll<HTMLButtonElement>("[data-dialog-close]")) {
    close.removeAttribute("popovertarget");
    close.removeAttribute("popovertargetaction");
    close.addEventListener("click", () => dialog.close());
  }
  dialog.addEventListener("close", () => {
    // A toast shown inside the dialog would vanish with it: hand it to the page's region to finish its time.
    const region = document.getElementById("toast-region");
    const inside = dialog.querySelectorAll("[data-dialog-toast-host] [data-toast]");
    if (region && inside.length > 0) {
      removeToasts();
      region.append(...inside);
    }
    opener.focus();
  });
  // A click on the backdrop (outside the panel) closes it too.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitInPlace(form, dialog);
  });
}

async function submitInPlace(form: HTMLFormElement, dialog: HTMLDialogElement) {
  if (form.dataset.busy) return;
  const body = new URLSearchParams();
  for (const [name, value] of new FormData(form)) body.append(name, typeof value === "string" ? value : value.name);
  const controls = [...form.querySelectorAll<HTMLInputElement | HTMLButtonElement>("input, button")];
  const submit = form.querySelector<HTMLButtonElement>("button[type=submit]");
  const idleLabel = submit?.textContent ?? "";

  form.dataset.busy = "true";
  form.setAttribute("aria-busy", "true");
  for (const control of controls) control.disabled = true;
  if (submit) submit.textContent = submit.dataset.busyLabel ?? idleLabel;

  let toast: Element | null = null;
  try {
    // The action answers with a redirect to "/" carrying the toast; fetch follows it and we take the toast from
    // that page, exactly what a visitor without JavaScript sees after their reload.
    const response = await fetch(form.action, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { Accept: "text/html" },
    });
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    toast = page.querySelector("#toast-region [data-toast]");
  } catch {
    toast = null;
  } finally {
    delete form.dataset.busy;
    form.removeAttribute("aria-busy");
    for (const control of controls) control.disabled = false;
    if (submit) submit.textContent = idleLabel;
  }

  const element = toast ? (document.importNode(toast, true) as HTMLElement) : fallbackToast();
  if (element.dataset.toast === "success") {
    form.reset();
    dialog.close();
    showToast(element, null);
  } else {
    // While the modal is open the rest of the page is inert (hidden from screen readers too), so the toast goes
    // inside the dialog where it can be read and announced.
    showToast(element, dialog);
    form.querySelector<HTMLInputElement>("input[type=email]")?.focus();
  }
}

/** The generic failure, for when no answer came back: the server renders its markup into a template. */
function fallbackToast(): HTMLElement {
  const template = document.querySelector<HTMLTemplateElement>("template[data-toast-fallback]");
  const toast = template?.content.querySelector<HTMLElement>("[data-toast]");
  if (toast) return document.importNode(toast, true);
  const element = document.createElement("div");
  element.setAttribute("role", "alert");
  element.dataset.toast = "error";
  element.className = "toast pointer-events-auto w-full max-w-sm rounded-xl border border-red-300 bg-red-50 p-4";
  element.textContent = `${SOMETHING_WENT_WRONG_TOAST.message}. ${SOMETHING_WENT_WRONG_TOAST.description}`;
  return element;
}

function showToast(toast: HTMLElement, dialog: HTMLDialogElement | null) {
  const region = dialog?.open ? dialogToastHost(dialog) : document.getElementById("toast-region");
  if (!region) return;
  removeToasts();
  region.append(toast);
  enhanceToast(toast);
}

/** One toast at a time: a new one replaces whatever is showing. */
function removeToasts() {
  for (const old of document.querySelectorAll(
    "#toast-region > [data-toast], [data-dialog-toast-host] > [data-toast]",
  )) {
    old.remove();
  }
}

function dialogToastHost(dialog: HTMLDialogElement): HTMLElement {
  let host = dialog.querySelector<HTMLElement>("[data-dialog-toast-host]");
  if (!host) {
    host = document.createElement("div");
    host.dataset.dialogToastHost = "";
    host.className = document.getElementById("toast-region")?.className ?? "";
    dialog.append(host);
  }
  return host;
}

function enhanceToast(toast: HTMLElement) {
  toast.classList.add("toast-enter");
  const dismiss = () => {
    toast.classList.add("toast-leave");
    const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    window.setTimeout(() => toast.remove(), reduced ? 0 : 200);
  };
  const close = toast.querySelector<HTMLAnchorElement>("[data-toast-close]");
  close?.addEventListener("click", (event) => {
    event.preventDefault();
    dismiss();
  });
  // Pausing while hovered or focused gives people time to read it.
  let timer = window.setTimeout(dismiss, TOAST_VISIBLE_MS);
  const pause = () => window.clearTimeout(timer);
  const resume = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(dismiss, TOAST_VISIBLE_MS);
  };
  toast.addEventListener("mouseenter", pause);
  toast.addEventListener("mouseleave", resume);
  toast.addEventListener("focusin", pause);
  toast.addEventListener("focusout", resume);
}

function start() {
  const dialog = document.querySelector<HTMLDialogElement>("dialog[data-newsletter-dialog]");
  if (dialog) enhanceDialog(dialog);
  for (const toast of document.querySelectorAll<HTMLElement>("#toast-region [data-toast]")) enhanceToast(toast);
  document.documentElement.dataset.enhanced = "true";
}

start();
