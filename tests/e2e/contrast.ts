import type { Browser, Page } from "@playwright/test";

/** An sRGB colour, 0-255 per channel. */
export type Rgb = readonly [number, number, number];

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** WCAG 2 relative luminance. */
export function relativeLuminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((channel) => {
    const s = channel / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio, 1 to 21. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The HSL hue (degrees) and chroma (0 to 1) of a colour: which colour family it reads as, and how strongly. */
export function hueOf([r, g, b]: Rgb): { hue: number; chroma: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const chroma = (max - min) / 255;
  if (max === min) return { hue: 0, chroma };
  const d = max - min;
  const sector = max === r ? ((g - b) / d + 6) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return { hue: sector * 60, chroma };
}

export const hex = (rgb: Rgb) => `#${rgb.map((channel) => channel.toString(16).padStart(2, "0")).join("")}`;

/** A piece of visible text: its words, its computed colour, where it is drawn, and whether WCAG counts it as large. */
export interface TextBox extends Rect {
  text: string;
  color: string;
  large: boolean;
}

/**
 * Every element that draws text of its own in `root` and can be seen (not hidden, transparent, clipped to a pixel like
 * screen-reader text, or emoji only: an emoji has its own colours). Boxes are in page coordinates when `fullPage` is
 * set (for a full-page screenshot), else in the viewport's.
 */
export async function visibleText(page: Page, root: string, fullPage: boolean): Promise<TextBox[]> {
  return page.locator(root).evaluate((rootElement, fullPage) => {
    const pictographs = /^(?:[\p{Extended_Pictographic}\p{Regional_Indicator}\u{1F3FB}-\u{1F3FF}\s]|\uFE0F|\u200D)*$/u;
    const boxes: TextBox[] = [];
    for (const element of [rootElement, ...rootElement.querySelectorAll("*")]) {
      if (["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT"].includes(element.tagName)) continue;
      const text = [...element.childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent ?? "")
        .join("")
        .trim();
      if (!text || pictographs.test(text)) continue;
      if (!element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      const rect = element.getBoundingClientRect();
      if (rect.width <= 2 || rect.height <= 2) continue;
      const style = getComputedStyle(element);
      const size = parseFloat(style.fontSize);
      const bold = Number(style.fontWeight) >= 700;
      boxes.push({
        text: text.slice(0, 60),
        color: style.color,
        // WCAG: at least 18pt, or 14pt bold (24px, 18.66px).
        large: size >= 24 || (bold && size >= 18.66),
        x: rect.x + (fullPage ? window.scrollX : 0),
        y: rect.y + (fullPage ? window.scrollY : 0),
        width: rect.width,
        height: rect.height,
      });
    }
    return boxes;
  }, fullPage);
}

/** The colour covering most of a region of a screenshot, and the share of the region it covers. */
export interface Dominant {
  rgb: Rgb;
  share: number;
}

/**
 * A blank page (no CSP, JavaScript on, whatever the project under test) that reads screenshots and converts CSS
 * colours (oklch, color-mix...) to sRGB with the browser's own canvas.
 */
export class PixelLab {
  private constructor(private readonly page: Page) {}

  static async open(browser: Browser): Promise<PixelLab> {
    const context = await browser.newContext({ javaScriptEnabled: true });
    return new PixelLab(await context.newPage());
  }

  async close() {
    await this.page.context().close();
  }

  /** CSS colours as the browser paints them, in sRGB. */
  async colours(css: string[]): Promise<Rgb[]> {
    return this.page.evaluate((values) => {
      const context = new OffscreenCanvas(1, 1).getContext("2d", { willReadFrequently: true })!;
      return values.map((value) => {
        context.clearRect(0, 0, 1, 1);
        context.fillStyle = "#000";
        context.fillStyle = value;
        context.fillRect(0, 0, 1, 1);
        const [r, g, b] = context.getImageData(0, 0, 1, 1).data;
        return [r!, g!, b!] as const;
      });
    }, css);
  }

  /**
   * For each region of the screenshot (the part of `outer` outside `inner`, when given), its most frequent colour:
   * the background around text or around a focus ring. Pixels of the `unlike` colour (a text's own, which can cover
   * more of a tight box than its background when the text is large and bold) are left out; when nearly nothing else
   * is there, that colour itself is the answer, so text drawn in its background's colour still measures 1:1. Also the
   * mean relative luminance of the whole picture.
   */
  async read(
    png: Buffer,
    regions: { outer: Rect; inner?: Rect; unlike?: Rgb }[],
  ): Promise<{ dominant: Dominant[]; mean: number }> {
    return this.page.evaluate(
      async ({ data, regions }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = new OffscreenCanvas(image.width, image.height);
        const context = canvas.getContext("2d", { willReadFrequently: true })!;
        context.drawImage(image, 0, 0);
        const pixels = context.getImageData(0, 0, image.width, image.height).data;
        const at = (x: number, y: number) => (y * image.width + x) * 4;
        const inside = (x: number, y: number, r?: { x: number; y: number; width: number; height: number }) =>
          r !== undefined && x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;

        const dominant = regions.map(({ outer, inner, unlike }) => {
          const counts = new Map<number, number>();
          let total = 0;
          const x0 = Math.max(0, Math.round(outer.x));
          const y0 = Math.max(0, Math.round(outer.y));
          const x1 = Math.min(image.width, Math.round(outer.x + outer.width));
          const y1 = Math.min(image.height, Math.round(outer.y + outer.height));
          for (let y = y0; y < y1; y++) {
            for (let x = x0; x < x1; x++) {
              if (inside(x, y, inner)) continue;
              const i = at(x, y);
              total++;
              if (
                unlike &&
                Math.max(
                  Math.abs(pixels[i]! - unlike[0]),
                  Math.abs(pixels[i + 1]! - unlike[1]),
                  Math.abs(pixels[i + 2]! - unlike[2]),
                ) <= 6
              ) {
                continue;
              }
              const key = (pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!;
              counts.set(key, (counts.get(key) ?? 0) + 1);
            }
          }
          let best = 0;
          let bestCount = 0;
          for (const [key, count] of counts) if (count > bestCount) [best, bestCount] = [key, count];
          if (unlike && bestCount < total * 0.1) return { rgb: unlike, share: 1 };
          return {
            rgb: [(best >> 16) & 255, (best >> 8) & 255, best & 255] as const,
            share: total ? bestCount / total : 0,
          };
        });

        const linear = (channel: number) => {
          const s = channel / 255;
          return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        };
        let sum = 0;
        let samples = 0;
        for (let y = 0; y < image.height; y += 4) {
          for (let x = 0; x < image.width; x += 4) {
            const i = at(x, y);
            sum += 0.2126 * linear(pixels[i]!) + 0.7152 * linear(pixels[i + 1]!) + 0.0722 * linear(pixels[i + 2]!);
            samples++;
          }
        }
        return { dominant, mean: sum / samples };
      },
      { data: png.toString("base64"), regions },
    );
  }
}

/** What a text contrast check found: each piece of text with its colour, its background and their ratio. */
export interface TextContrast {
  text: string;
  color: string;
  background: string;
  ratio: number;
  required: number;
}

/**
 * Every visible text in `root` against the background actually drawn behind it (the dominant colour of its box in
 * `png`, a screenshot taken as `visibleText` was read), with the ratio WCAG AA requires of it.
 */
export async function textContrasts(lab: PixelLab, png: Buffer, boxes: TextBox[]): Promise<TextContrast[]> {
  const colours = await lab.colours(boxes.map((box) => box.color));
  const { dominant } = await lab.read(
    png,
    boxes.map((box, index) => ({ outer: box, unlike: colours[index] })),
  );
  return boxes.map((box, index) => {
    const color = colours[index]!;
    const background = dominant[index]!.rgb;
    return {
      text: box.text,
      color: hex(color),
      background: hex(background),
      ratio: Math.round(contrastRatio(color, background) * 100) / 100,
      required: box.large ? 3 : 4.5,
    };
  });
}
