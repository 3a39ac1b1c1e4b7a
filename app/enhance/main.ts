// The page is complete without JavaScript; this small script only enhances it (we do not hydrate React: see
// docs/decisions/002-no-hydration.md). It turns the newsletter popover into a modal dialog that submits in place,
// shows the busy state, and animates and auto-dismisses toasts.

const TOAST_VISIBLE_MS = 6_000;

const FALLBACK_ERROR = {
  message: "Something went wrong",
  description: "Please try again later.",
};

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
  dialog.addEventListener("close", () => opener.focus());
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

  const shown = toast ? showToast(document.importNode(toast, true)) : showToast(fallbackToast());
  if (shown.dataset.toast === "success") {
    form.reset();
    dialog.close();
  } else {
    form.querySelector<HTMLInputElement>("input[type=email]")?.focus();
  }
}

function fallbackToast(): HTMLElement {
  const template = document.createElement("div");
  template.setAttribute("role", "alert");
  template.dataset.toast = "error";
  template.className =
    "toast pointer-events-auto w-full max-w-sm rounded-xl border border-red-300 bg-red-50 p-4 text-red-950 shadow-lg";
  const title = document.createElement("p");
  title.className = "font-semibold";
  title.textContent = FALLBACK_ERROR.message;
  const description = document.createElement("p");
  description.className = "mt-1 text-sm";
  description.textContent = FALLBACK_ERROR.description;
  template.append(title, description);
  return template;
}

function showToast(toast: Element): HTMLElement {
  const region = document.getElementById("toast-region");
  const element = toast as HTMLElement;
  if (!region) return element;
  region.replaceChildren(element);
  enhanceToast(element);
  return element;
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
