// Makes the PNG icons from public/favicon.svg, for the browsers and devices that take no SVG icon: Safari's touch
// icon (180×180), a small PNG favicon, and /favicon.ico (that PNG in an ICO wrapper), which browsers and feed readers
// ask for whatever the page links. Run it after changing the SVG (`node scripts/make-icons.mjs`) and commit the
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

// An ICO file may hold a PNG as it is (Windows Vista and later, every current browser): a 6-byte header, one 16-byte
// directory entry, then the image.
const png = readFileSync(new URL("favicon-48.png", publicDir));
const ico = Buffer.alloc(22);
ico.writeUInt16LE(1, 2); // type: icon
ico.writeUInt16LE(1, 4); // one image
ico.writeUInt8(48, 6); // width
ico.writeUInt8(48, 7); // height
ico.writeUInt16LE(1, 10); // colour planes
ico.writeUInt16LE(32, 12); // bits per pixel
ico.writeUInt32LE(png.length, 14);
ico.writeUInt32LE(22, 18); // where the image starts
writeFileSync(new URL("favicon.ico", publicDir), Buffer.concat([ico, png]));
console.log(`public/favicon.ico: 48×48, ${ico.length + png.length} bytes`);
