// React 18's JSX types predate the HTML popover API; React passes these lowercase attributes through unchanged.
import "react";

/* eslint-disable @typescript-eslint/no-unused-vars -- merged interfaces must repeat React's type parameter */
declare module "react" {
  interface HTMLAttributes<T> {
    popover?: "auto" | "manual" | "";
  }
  interface ButtonHTMLAttributes<T> {
    popovertarget?: string;
    popovertargetaction?: "toggle" | "show" | "hide";
  }
}
