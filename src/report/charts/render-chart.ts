import { Resvg } from "@resvg/resvg-js";
import * as vega from "vega";
import { compile } from "vega-lite";
import type { ChartSpec } from "./chart-spec.js";

/** Vega-Lite -> Vega -> SVG, headless in Node (no browser, no canvas, no network). */
export async function renderSvg(chart: ChartSpec): Promise<string> {
  const compiled = compile(chart.spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** SVG -> PNG at 2x for sharp text, fonts from the system (fonts-dejavu-core). */
export function svgToPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    fitTo: { mode: "zoom", value: 2 },
    background: "white",
    font: { loadSystemFonts: true },
  });
  return Buffer.from(resvg.render().asPng());
}
