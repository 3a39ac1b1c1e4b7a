/**
 * The events for which React 18 hydrates a root that is still the server's HTML synchronously, at once, before it
 * handles them (react-dom's `isDiscreteEventThatRequiresHydration`).
 */
export const DISCRETE_EVENTS = [
  "mousedown",
  "mouseup",
  "touchcancel",
  "touchend",
  "touchstart",
  "auxclick",
  "dblclick",
  "pointercancel",
  "pointerdown",
  "pointerup",
  "dragend",
  "dragstart",
  "drop",
  "compositionend",
  "compositionstart",
  "keydown",
  "keypress",
  "keyup",
  "input",
  "textInput",
  "copy",
  "cut",
  "paste",
  "click",
  "change",
  "contextmenu",
  "reset",
  "submit",
] as const;

/**
 * Keeps the discrete events away from React (which listens on the document) until `release` is called: they still
 * reach the page as the browser handles them without JavaScript (a key types, a popover button opens its popover, a
 * form posts), and listeners on `target` itself still hear them.
 *
 * Why: a discrete event that reaches React before its first render has run makes it hydrate the root synchronously,
 * and Remix's `RemixBrowser` (single fetch) suspends outside any Suspense boundary until its data stream is decoded.
 * React 18 then gives up the whole root ("Root did not complete", error #345) and the page stays without JavaScript
 * for good. Held until the root commits, the events cost React nothing: it cannot handle an event on HTML it has not
 * taken over yet.
 */
export function holdDiscreteEvents(target: EventTarget): () => void {
  const stop = (event: Event) => event.stopPropagation();
  const capture = { capture: true };
  for (const type of DISCRETE_EVENTS) target.addEventListener(type, stop, capture);
  return () => {
    for (const type of DISCRETE_EVENTS) target.removeEventListener(type, stop, capture);
  };
}
