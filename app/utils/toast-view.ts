// What a toast says, apart from how it is shown (app/components/toast.tsx): the server flashes it, the page shows it.

export type ToastType = "success" | "error" | "info" | "warning";

export interface ToastView {
  type: ToastType;
  message: string;
  description?: string;
  /** One more line under the description: what the reader does next (a sign-up's mail to confirm). */
  note?: string;
}

/** A toast to show; a new id is a new toast, even with the same text. */
export interface ShownToast extends ToastView {
  id: string;
}
