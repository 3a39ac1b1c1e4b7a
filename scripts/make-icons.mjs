// Makes the PNG icons from public/favicon.svg, for the browsers and devices that take no SVG icon: Safari's touch
// icon (180×180) and a small PNG favicon. Run it after changing the SVG (`node scripts/make-icons.mjs`) and commit the
// PNGs: the server only serves them. Uses the same resvg as the social card.
import { readFileSync, writeFileSync } from "node:fs";
import { Resvg } from "@resvg/resvg-js";

const publicDir = new URL("../public/", import.meta.url);
const svg = readFileSync(new URL("favicon.svg", publicDir));

// The SVG asks for Arial; Liberation Sans (Debian's fonts-liberation, which Chromium pulls in) has Arial's metrics.
// Any other sans-serif font draws the same icon a little differently; the PNGs are committed, so this runs rarely.
const font = {
  loadSystemFonts: true,
  defaultFontFamily: "Liberation Sans",
  sansSerifFamily: "Liberation Sans",
};

const ICONS = [
  // iOS rounds the corners itself and fills transparent ones with black: the touch icon is a full square.
  { file: "apple-touch-icon.png", size: 180, background: "#4338ca" },
  { file: "favicon-48.png", size: 48 },
];

for (const { file, size, background } of ICONS) {
  const png = new Resvg(svg, { font, fitTo: { mode: "width", value: size }, ...(background && { background }) })
    .render()
    .asPng();
  writeFileSync(new URL(file, publicDir), png);
  console.log(`public/${file}: ${size}×${size}, ${png.length} bytes`);
}
