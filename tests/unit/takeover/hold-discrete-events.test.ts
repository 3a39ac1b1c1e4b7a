import { describe, expect, it } from "vitest";
import { DISCRETE_EVENTS, holdDiscreteEvents } from "~/takeover/hold-discrete-events";

/** Whether an event of `type` dispatched at `target` would still travel on to the document (React's listener). */
function travelsOn(target: EventTarget, type: string) {
  const event = new Event(type, { bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  return { travels: !event.cancelBubble, defaultPrevented: event.defaultPrevented };
}

describe("holdDiscreteEvents", () => {
  it("stops every discrete event on its way to React, and leaves its default action to the browser", () => {
    const window = new EventTarget();
    holdDiscreteEvents(window);
    for (const type of DISCRETE_EVENTS) {
      expect(travelsOn(window, type), type).toEqual({ travels: false, defaultPrevented: false });
    }
  });

  it("lets other events through: React does not hydrate at once for them", () => {
    const window = new EventTarget();
    holdDiscreteEvents(window);
    for (const type of ["mousemove", "pointermove", "scroll", "focusin", "load"]) {
      expect(travelsOn(window, type).travels, type).toBe(true);
    }
  });

  it("holds nothing once released, and a second release changes nothing", () => {
    const window = new EventTarget();
    const release = holdDiscreteEvents(window);
    release();
    release();
    for (const type of DISCRETE_EVENTS) expect(travelsOn(window, type).travels, type).toBe(true);
  });

  it("keeps the window's own listeners hearing the held events (the dialog's chunk is asked for at the first key)", () => {
    const window = new EventTarget();
    holdDiscreteEvents(window);
    const heard: string[] = [];
    window.addEventListener("keydown", (event) => heard.push(event.type), true);
    travelsOn(window, "keydown");
    expect(heard).toEqual(["keydown"]);
  });
});
