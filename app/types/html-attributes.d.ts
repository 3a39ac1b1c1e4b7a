// React 18's JSX types predate these HTML attributes; React passes the lowercase names through unchanged.
import "react";

/* eslint-disable @typescript-eslint/no-unused-vars -- merged interfaces must repeat React's type parameter */
declare module "react" {
  interface HTMLAttributes<T> {
    popover?: "auto" | "manual" | "";
  }
  interface ImgHTMLAttributes<T> {
    // React 18 warns on the camelCase `fetchPriority`; the lowercase attribute passes through.
    fetchpriority?: "high" | "low" | "auto";
  }
  interface ButtonHTMLAttributes<T> {
    popovertarget?: string;
    popovertargetaction?: "toggle" | "show" | "hide";
  }
}
