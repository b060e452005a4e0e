// Render a run report (.design/report.html, or a copy the e2e suite kept in .cache/e2e-reports/) in headless
// Chromium and save its top as a PNG: the header, the graph, the attempts, the phases and the verdicts, down to the
// roles' sections. README's docs/report.png is made so from the e2e suite's partly run plan:
//
//   node scripts/report-screenshot.mjs .cache/e2e-reports/plan-status-partial.html docs/report.png
//
// Options: --width <px> (viewport, default 1100), --max-height <px> (default 1400), --dark (the dark scheme),
// --full (the whole page). It drives Chromium with the test suite's own DevTools-pipe client
// (test/helpers/browser.ts, loaded through tsx, a dev dependency) and fails when the page logs an error or asks for
// anything beyond its own file, as the browser tests do.
import { existsSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";

function usage(message) {
  console.error(`${message}\nusage: node scripts/report-screenshot.mjs <report.html> <out.png> [--width 1100] [--max-height 1400] [--dark] [--full]`);
  process.exit(2);
}

const positional = [];
const opts = { width: 1100, maxHeight: 1400, dark: false, full: false };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--dark") opts.dark = true;
  else if (a === "--full") opts.full = true;
  else if (a === "--width" || a === "--max-height") {
    const n = Number(argv[++i]);
    if (!Number.isInteger(n) || n < 200 || n > 10_000) usage(`${a} takes a whole number of pixels from 200 to 10000`);
    opts[a === "--width" ? "width" : "maxHeight"] = n;
  } else if (a.startsWith("--")) usage(`unknown option ${a}`);
  else positional.push(a);
}
if (positional.length !== 2) usage("give the report and the PNG to write");
const [input, output] = positional.map((p) => resolve(p));
if (!existsSync(input) || !statSync(input).isFile()) usage(`no such file: ${input}`);

// The helper is CommonJS TypeScript like the tests: tsx's require hook compiles it.
const require = createRequire(import.meta.url);
require("tsx/cjs/api").register();
const { Browser, CHROMIUM } = require("../test/helpers/browser.ts");
if (!CHROMIUM) usage("no Chromium: apt-get install chromium");

const url = pathToFileURL(input).href;
const browser = Browser.launch();
try {
  const page = await browser.page(opts.width, 900);
  if (opts.dark) await page.send("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: "dark" }] });
  await page.open(url);
  const errors = page.errors();
  const foreign = [...new Set(page.requests())].filter((u) => u !== url);
  if (errors.length || foreign.length) throw new Error(`the report is not clean: errors ${JSON.stringify(errors)}, requests ${JSON.stringify(foreign)}`);
  // Down to the roles' heading (or the whole page), at most --max-height.
  const height = await page.evaluate(`(() => {
    const end = ${opts.full ? "null" : `document.getElementById("roles-h")`};
    const h = end ? end.getBoundingClientRect().top + window.scrollY - 12 : document.documentElement.scrollHeight;
    return Math.ceil(h);
  })()`);
  const clip = { x: 0, y: 0, width: opts.width, height: Math.min(height, opts.maxHeight), scale: 1 };
  const shot = await page.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true, clip });
  const png = Buffer.from(shot.data, "base64");
  writeFileSync(output, png);
  console.log(`${output}: ${clip.width}x${clip.height} px, ${Math.round(png.length / 1024)} KB, from ${url}`);
} finally {
  browser.close();
}
