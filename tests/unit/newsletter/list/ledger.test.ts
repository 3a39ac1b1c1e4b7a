// The ledger's table of transitions (app/newsletter/list/ledger.ts): every door from every state, and the rules the
// adapters and the Supabase migration carry out.
import { describe, expect, it } from "vitest";
import {
  DOORS,
  isOwnAct,
  LEFT_REASONS,
  STATES,
  strongerReason,
  transition,
  unsuppressVerdict,
} from "~/newsletter/list/ledger";

describe("the ledger's transitions", () => {
  it("answer every door from every state", () => {
    for (const state of STATES) for (const door of DOORS) expect(transition(state, door).to).toMatch(/^[a-z]+$/);
  });

  it("remember a reader's leaving by every door that leaves, from any state", () => {
    const leaving = {
      unsubscribe: "unsubscribed",
      complaint: "complained",
      bounce: "bounced",
      "import-left": "imported",
    };
    for (const [door, reason] of Object.entries(leaving)) {
      for (const state of ["pending", "confirmed"] as const) {
        expect(transition(state, door as keyof typeof leaving)).toEqual({ to: "left", tombstone: reason });
      }
    }
    expect(transition("absent", "complaint")).toEqual({ to: "left", tombstone: "complained" });
    // A relay's word that the reader unsubscribed there names the mailbox, on the list or not; the site's own link
    // needs a row that holds it.
    expect(transition("absent", "relay-unsubscribe")).toEqual({ to: "left", tombstone: "unsubscribed" });
    expect(transition("absent", "unsubscribe").refused).toBe("unknown link");
    expect(transition("left", "unsubscribe", "bounced")).toEqual({ to: "left", tombstone: "unsubscribed" });
  });

  it("never revive a mailbox that left by an import, a restore, the owner's remove or a sign-up without mail", () => {
    for (const door of ["import-subscribed", "restore", "remove", "sign-up-without-mail", "expire"] as const) {
      expect(transition("left", door, "unsubscribed").to).toBe("left");
    }
  });

  it("lift a leaving only by the person's own confirmed sign-up, or the owner's unsuppress of a bounce or an import", () => {
    expect(transition("left", "sign-up", "complained")).toMatchObject({ to: "pending", confirmationMail: true });
    expect(transition("pending", "confirm", "complained")).toEqual({ to: "confirmed", tombstone: "lift" });
    expect(transition("pending", "expire", "complained").to).toBe("left");
    for (const reason of LEFT_REASONS) {
      const lifted = transition("left", "unsuppress", reason);
      expect(lifted.tombstone === "lift").toBe(!isOwnAct(reason));
      if (isOwnAct(reason)) expect(lifted.refused).toMatch(/only their own new sign-up, confirmed by mail/);
    }
    expect(unsuppressVerdict("bounced")).toEqual({ lift: true });
  });

  it("let an import's word that a reader left count whatever came first, except against a sign-up here", () => {
    expect(transition("confirmed", "import-left")).toEqual({ to: "left", tombstone: "imported" });
    expect(transition("confirmed", "import-left", null, true)).toMatchObject({ to: "confirmed", tombstone: null });
    expect(transition("confirmed", "import-subscribed").refused).toBe("on the list");
  });

  it("keep the stronger reason: the reader's own act over a bounce over an import", () => {
    expect(strongerReason("complained", "bounced")).toBe("complained");
    expect(strongerReason("bounced", "unsubscribed")).toBe("unsubscribed");
    expect(strongerReason("imported", "bounced")).toBe("bounced");
    expect(strongerReason("unsubscribed", "imported")).toBe("unsubscribed");
    expect(strongerReason(null, "imported")).toBe("imported");
  });
});
