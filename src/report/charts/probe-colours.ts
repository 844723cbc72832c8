import { movesData } from "../../probes/registry.js";
import type { ReportModel } from "../report-model.js";

/**
 * Colour-blind-safe (Okabe-Ito, then darker tones), none of them the grey of the quota line or
 * the yellow of the burst shading, so a colour on the page always means a probe.
 */
const palette = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#CC79A7",
  "#56B4E9",
  "#D55E00",
  "#6A3D9A",
  "#8C564B",
  "#1B7837",
  "#B2182B",
];

/** A probe variant as the charts see it (a cell, a curve, a verdict). */
export interface ProbeVariant {
  /** Empty when unknown (a fleet point): the label then names it. */
  probeKey: string;
  probeLabel: string;
  arch: string;
}

/**
 * What a chart's legend names a probe by: its short name ("iperf3 up -P4") when no two variants
 * of the run share it, else its full label; with the arch when the run has two.
 */
export type ProbeSeriesName = (probe: ProbeVariant) => string;

/**
 * One colour per probe for the whole report: every chart asks this mapping, so a probe keeps its
 * colour from chart to chart (Vega-Lite would otherwise colour each chart's legend in its own order).
 */
export interface ProbeColours {
  name: ProbeSeriesName;
  /** A Vega-Lite colour scale for the probes a chart shows, in the plan's order, fixed colours. */
  scale(names: Iterable<string>): { domain: string[]; range: string[] };
  colourOf(name: string): string;
}

export function probeColours(model: ReportModel): ProbeColours {
  const measuring = model.analysis.cells.filter((c) => movesData(c.probe));
  const multiArch = new Set(measuring.map((c) => c.arch)).size > 1;
  const shorts = Object.values(model.probeNames ?? {}).map((n) => n.short);
  const shortsUnique = new Set(shorts).size === shorts.length;
  const name: ProbeSeriesName = ({ probeKey, probeLabel, arch }) => {
    // a fleet point knows only its label: it is the probe of the cell with that label
    const key =
      probeKey || measuring.find((c) => c.probeLabel === probeLabel && c.arch === arch)?.probeKey || "";
    const short = shortsUnique ? model.probeNames?.[key]?.short : undefined;
    const label = short ?? probeLabel;
    return multiArch ? `${label} (${arch})` : label;
  };
  // the plan's order, so the first probe is always blue; fleets chart their probes without the
  // "xN envs" suffix of their cells, so those names join the list too
  const order = [
    ...new Set([
      ...measuring.map(name),
      ...model.fleets.map((p) => name({ probeKey: "", probeLabel: p.probeLabel, arch: p.arch })),
    ]),
  ];
  const colourOf = (series: string) => {
    const index = order.indexOf(series);
    return palette[(index < 0 ? order.length : index) % palette.length] as string;
  };
  return {
    name,
    colourOf,
    scale(names) {
      const wanted = new Set(names);
      const domain = order.filter((series) => wanted.has(series));
      return { domain, range: domain.map(colourOf) };
    },
  };
}
