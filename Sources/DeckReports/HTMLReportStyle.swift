/// The inline style sheet of the HTML report (`HTMLReport`).
///
/// Layout rules it keeps: the page never scrolls sideways (wide tables scroll inside their own
/// box, with their first column sticky; long words and paths wrap); below 700 px the charts stack
/// and rearrange (an interval chart puts each arm's plot under its name and numbers, a per-day
/// chart switches to its narrow variant), so that no text falls below about 11 px on a 390 px
/// phone; lines and markers are borders and SVG, which print, and the page prints without its
/// navigation.
enum HTMLReportStyle {
  static let css = """
    :root { --ink: #1a1a1a; --muted: #5a5a5a; --rule: #d9d9d9; --head: #f3f3f3;
      --better: #d6e8f5; --worse: #fadfcf; --differs: #e8e8e8; --accent: #0072B2; }
    * { box-sizing: border-box; }
    html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
    body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
      sans-serif; color: var(--ink); background: #fff; max-width: 1240px; margin: 0 auto;
      padding: 20px 28px 40px; line-height: 1.45; font-size: 15px; overflow-wrap: break-word; }
    h1 { font-size: 1.5rem; margin: 0 0 .3rem; overflow-wrap: anywhere; }
    h2 { font-size: 1.22rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem;
      margin: 2rem 0 .6rem; }
    h3 { font-size: 1rem; margin: 0; overflow-wrap: anywhere;
      font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
    #tables h3, footer h3 { font-family: inherit; margin: 1.2rem 0 .2rem; }
    code, .hash, .path { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas,
      monospace; font-size: .85em; }
    .lede { margin: 0 0 .5rem; color: var(--muted); }
    nav ul { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap;
      gap: 4px 14px; font-size: .9rem; }
    nav a { color: var(--accent); }
    .help, .definition, .meta, figcaption, .key { color: var(--muted); font-size: .85rem;
      margin: .15rem 0 .4rem; }
    .meta { color: var(--ink); }
    .dir { font-weight: 600; white-space: nowrap; }
    .unit { white-space: nowrap; }
    .tag { display: inline-block; font-size: .72rem; font-weight: 600; color: #fff;
      background: #555; border-radius: 3px; padding: 0 4px; margin-left: 5px;
      vertical-align: 1px; font-family: system-ui, sans-serif; white-space: nowrap; }
    .callout { border-left: 4px solid var(--accent); background: #f3f8fc; padding: .5rem .9rem;
      margin: .8rem 0; font-size: .88rem; }
    .callout p { margin: .3rem 0; }
    .warning { color: #8a3300; }
    .notes li { overflow-wrap: anywhere; }
    /* Tables scroll inside their box, never the page; the first column stays in view. */
    .table-wrap { overflow-x: auto; max-width: 100%; margin: .3rem 0 1rem; }
    table { border-collapse: separate; border-spacing: 0; font-size: .85rem; }
    th, td { border-bottom: 1px solid var(--rule); border-right: 1px solid var(--rule);
      padding: 4px 8px; text-align: right; font-variant-numeric: tabular-nums;
      white-space: nowrap; vertical-align: top; }
    tr > :first-child { border-left: 1px solid var(--rule); }
    thead tr:first-child > * { border-top: 1px solid var(--rule); }
    thead th { background: var(--head); white-space: normal; vertical-align: bottom;
      text-align: left; font-weight: 600; }
    tbody th[scope="row"] { text-align: left; font-weight: normal; position: sticky; left: 0;
      background: #fff; z-index: 1; }
    thead th:first-child { position: sticky; left: 0; z-index: 2; }
    .mname { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
      font-size: .95em; }
    .armlabel { display: inline-flex; align-items: center; gap: 5px; max-width: 16em;
      vertical-align: middle; }
    .armname { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .swatch { flex: none; }
    table.data thead th { max-width: 16em; }
    table.data .group { border-left: 2px solid #bbb; }
    td.significant { font-weight: 700; background: var(--better); }
    .dishes td { white-space: normal; min-width: 11em; max-width: 16em; text-align: left; }
    .dishes .category { color: var(--muted); font-size: .9em; }
    .dishes .count { font-weight: 600; }
    /* The leaderboard: value over interval; the best starred; marked cells tinted. */
    .leaderboard th[scope="col"] { min-width: 8.5em; max-width: 10em; }
    .leaderboard .unit { white-space: normal; }
    .leaderboard .mname { display: block; overflow-wrap: anywhere; }
    .leaderboard .meaning { display: block; font-weight: normal; color: var(--muted);
      font-size: .9em; margin-top: 2px; }
    .leaderboard td .v { display: block; font-size: 1.02rem; }
    .leaderboard td .ci { display: block; color: var(--muted); font-size: .8rem; }
    .leaderboard tr.baseline th, .leaderboard tr.baseline td { background: #fafafa; }
    .leaderboard td.best .v { font-weight: 700; }
    .star { color: #b15e00; margin-right: 2px; }
    .leaderboard td.better, .swatch-key.better { background: var(--better); }
    .leaderboard td.worse, .swatch-key.worse { background: var(--worse); }
    .leaderboard td.differs, .swatch-key.differs { background: var(--differs); }
    .swatch-key { padding: 0 4px; border-radius: 2px; color: var(--ink); white-space: nowrap; }
    /* Metric sections: the two charts side by side when there is room. */
    .metric { margin: 1.2rem 0 1.6rem; break-inside: avoid; page-break-inside: avoid; }
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 500px), 1fr));
      gap: 8px 32px; }
    figure { margin: 0; min-width: 0; }
    figcaption { margin: .3rem 0 .2rem; }
    /* Interval charts (HTML): a label (marker, name, numbers), the plot, the p-values. */
    .ichart { font-size: .84rem; --plot-pad: 12px; }
    .irow { display: grid; grid-template-columns: var(--label) minmax(0, 1fr);
      grid-template-areas: "label plot"; column-gap: 10px; align-items: center; }
    .ichart.has-p .irow { grid-template-columns: var(--label) minmax(0, 1fr) var(--p);
      grid-template-areas: "label plot p"; }
    .ilabel { grid-area: label; min-width: 0; padding: 3px 0; }
    .iname { display: flex; align-items: center; gap: 5px; min-width: 0; }
    .iname .arm { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .irow.marked .arm { font-weight: 700; }
    .inum, .ip { font-variant-numeric: tabular-nums; white-space: nowrap; color: #3a3a3a;
      font-size: .95em; }
    .inum { padding-left: 17px; }
    .ip { grid-area: p; text-align: right; line-height: 1.25; }
    .ip.significant { font-weight: 700; background: var(--better); border-radius: 3px;
      padding: 1px 3px; }
    .iplot { grid-area: plot; position: relative; height: 40px; margin: 0 var(--plot-pad); }
    .iplot > span { position: absolute; }
    .iplot .grid, .iplot .zero, .iplot .reference { top: 0; bottom: 0; width: 0; }
    .iplot .grid { border-left: 1px solid #e4e4e4; }
    .iplot .zero { border-left: 1.5px solid #222; }
    .iplot .reference { border-left: 1.5px dashed #555; }
    .iplot .whisker { top: 50%; height: 0; border-top: 2px solid currentColor; }
    .iplot .whisker::before, .iplot .whisker::after { content: ""; position: absolute;
      top: -7px; height: 12px; border-left: 2px solid currentColor; }
    .iplot .whisker::before { left: -1px; }
    .iplot .whisker::after { right: -1px; }
    .iplot .dot { top: 50%; transform: translate(-50%, -50%); line-height: 0; }
    .iplot .undefined { left: 6px; top: 50%; transform: translateY(-50%); font-style: italic;
      color: #767676; }
    .mk { display: block; flex: none; }
    .ihead .iplot, .iaxis .iplot, .ititle .iplot { height: auto; min-height: 1.2em; }
    .ihead .iplot { height: 1.3em; }
    .iplot .reflabel, .iplot .tick { transform: translateX(-50%); white-space: nowrap;
      color: var(--muted); font-size: .92em; }
    .iaxis .iplot { border-top: 1px solid #888; height: 1.5em; }
    .iaxis .tick { top: 2px; }
    .ititle .iplot { text-align: center; color: var(--muted); font-size: .92em; }
    /* Per-day charts (SVG). */
    ul.legend { list-style: none; padding: 0; margin: .3rem 0 .8rem; display: flex;
      flex-wrap: wrap; gap: 4px 16px; font-size: .88rem; }
    svg.chart { display: block; width: 100%; height: auto; overflow: visible; }
    svg.chart text { font-size: 12.5px; fill: var(--ink); }
    svg.chart .tick { fill: #444; }
    svg.chart .axis-title { fill: var(--muted); }
    svg.chart .undefined { font-style: italic; fill: #767676; }
    svg.chart .grid { stroke: #e6e6e6; stroke-width: 1; }
    svg.chart .axis { stroke: #888; stroke-width: 1; }
    svg.chart .series { stroke-width: 2; fill: none; }
    svg.chart .series.muted { stroke-width: 1.6; }
    svg.chart .band { fill-opacity: .16; stroke: none; }
    .curve-chart { max-width: 780px; }
    .curve-grid { display: grid; gap: 0 32px;
      grid-template-columns: repeat(auto-fit, minmax(min(100%, 480px), 1fr)); }
    .for-narrow { display: none; }
    .panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 270px), 1fr));
      gap: 10px 22px; margin-top: .8rem; }
    .panel { max-width: 420px; }
    .panel figcaption { margin: 0 0 .1rem; color: var(--ink); font-size: .88rem; }
    /* Footer. */
    footer { margin-top: 2.5rem; border-top: 2px solid var(--rule); }
    footer h2 { border: 0; }
    dl.run { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 14px;
      margin: 0 0 .6rem; font-size: .88rem; }
    dl.run dt { font-weight: 600; }
    dl.run dd { margin: 0; min-width: 0; }
    code.command { display: block; background: #f5f5f5; padding: 6px 8px; border-radius: 3px; }
    code.command .arg { display: inline-block; max-width: 100%; overflow-wrap: anywhere;
      white-space: pre-wrap; }
    table.inputs td { white-space: normal; text-align: left; }
    table.inputs .path { overflow-wrap: anywhere; min-width: 10em; }
    table.inputs .hash { overflow-wrap: anywhere; word-break: break-all; min-width: 16em; }
    .parameters td { text-align: left; white-space: normal; overflow-wrap: anywhere;
      min-width: 12em; }
    .parameters th { background: var(--head); font-weight: 600; }
    .parameters tr:first-child > * { border-top: 1px solid var(--rule); }
    @media (max-width: 700px) {
      body { padding: 12px 12px 32px; font-size: 14.5px; }
      h1 { font-size: 1.3rem; }
      .for-wide { display: none; }
      .for-narrow { display: block; }
      .irow { grid-template-columns: minmax(0, 1fr); grid-template-areas: "label" "plot"; }
      .ichart.has-p .irow { grid-template-columns: minmax(0, 1fr) var(--p);
        grid-template-areas: "label p" "plot plot"; }
      .ilabel { display: flex; flex-wrap: wrap; justify-content: space-between;
        column-gap: 10px; padding-top: 6px; }
      .ichart.has-p .ilabel { display: block; }
      .inum { padding-left: 0; }
      .leaderboard tbody th .tag { display: table; margin: 3px 0 0 31px; }
      .leaderboard .armlabel { max-width: 10.5em; }
      .leaderboard th[scope="col"] { min-width: 7.8em; }
      .iplot { height: 26px; }
      .ihead .iplot, .iaxis .iplot, .ititle .iplot { grid-column: 1 / -1; }
      .ichart .ihead, .ichart .iaxis, .ichart .ititle { grid-template-areas: "plot"; }
      .ichart.has-p .ihead, .ichart.has-p .iaxis, .ichart.has-p .ititle {
        grid-template-areas: "plot plot"; }
    }
    @media print {
      * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
      body { max-width: none; padding: 0; font-size: 10pt; }
      nav { display: none; }
      .table-wrap { overflow: visible; }
      tbody th[scope="row"], thead th:first-child { position: static; }
      figure, table, .metric, .panel { break-inside: avoid; page-break-inside: avoid; }
      a { color: inherit; text-decoration: none; }
    }

    """
}
