import { expect, test } from "./fixtures";

// A slow phone can paint the page before its document has fully arrived: the parser stops after some node, the
// browser paints what it has, and when the rest comes every block already shown must stay where it was, or the
// visitor sees it jump (a layout shift; on a loaded CI machine, a centred row painted before its second link's text).
// Which node the parser stops after depends on the machine, so this test tries every one: for each node of the body
// in document order, the page is cut right after it (the state the parser leaves), and each element then on screen
// must have the top-left corner it has in the whole page.

interface Moved {
  cutAfter: string;
  element: string;
  partial: { x: number; y: number };
  whole: { x: number; y: number };
}

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
]) {
  test(`no block on screen moves when the rest of / arrives, whatever node the parser stops after (${viewport.width}×${viewport.height})`, async ({
    page,
    javaScriptEnabled,
  }) => {
    test.skip(javaScriptEnabled, "the document as the server sends it; React would not survive the cuts");
    await page.setViewportSize(viewport);
    await page.goto("/", { waitUntil: "load" });
    await page.evaluate(() => document.fonts.ready);

    const result = await page.evaluate(() => {
      const describe = (element: Element) =>
        `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${
          element.getAttribute("class") ? `.${element.getAttribute("class")!.split(" ").slice(0, 4).join(".")}` : ""
        }`;
      const nodesInOrder = (root: Node) => {
        const nodes: Node[] = [];
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) nodes.push(walker.currentNode);
        return nodes;
      };
      const corners = () =>
        Array.from(document.body.querySelectorAll("*"), (element) => {
          const rect = element.getBoundingClientRect();
          return { x: rect.left, y: rect.top, width: rect.width, height: rect.height };
        });

      const whole = document.body.cloneNode(true) as HTMLElement;
      const wholeCorners = corners();
      const nodeCount = nodesInOrder(whole).length;
      const moved: Moved[] = [];
      for (let cut = 0; cut < nodeCount; cut += 1) {
        const body = whole.cloneNode(true) as HTMLElement;
        const nodes = nodesInOrder(body);
        const last = nodes[cut]!;
        // The parser's state right after inserting `last`: nothing inside it yet, nothing after it.
        for (const node of nodes.slice(cut + 1)) node.parentNode?.removeChild(node);
        document.body.replaceWith(body);
        // Elements present in the cut page are a prefix of the whole page's elements, in the same order.
        const partial = corners();
        partial.forEach((rect, index) => {
          const onScreen = rect.width > 0 && rect.height > 0 && rect.y < innerHeight && rect.x < innerWidth;
          const before = wholeCorners[index]!;
          if (onScreen && (Math.abs(rect.x - before.x) > 0.5 || Math.abs(rect.y - before.y) > 0.5)) {
            const element = body.querySelectorAll("*")[index]!;
            moved.push({
              cutAfter: last instanceof Element ? describe(last) : `text "${(last.textContent ?? "").slice(0, 30)}"`,
              element: describe(element),
              partial: { x: rect.x, y: rect.y },
              whole: { x: before.x, y: before.y },
            });
          }
        });
      }
      return { nodeCount, moved: moved.slice(0, 10), movedCount: moved.length };
    });

    test.info().annotations.push({ type: "cuts", description: `${result.nodeCount} nodes tried` });
    // The page is more than a handful of nodes, so the loop above really cut it in many places.
    expect(result.nodeCount).toBeGreaterThan(200);
    expect(result.moved, `${result.movedCount} moves`).toEqual([]);
  });
}
