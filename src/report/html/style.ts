// report.html's stylesheet, inlined in the page.
export const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 1.5em 3em; color: #222; }
h1 { font-size: 1.4em; margin: 1em 0 .3em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
h3 { font-size: 1.02em; margin: 1.2em 0 .4em; }
nav a { margin-right: 1em; } code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .92em; }
table { border-collapse: collapse; margin: .6em 0; } th, td { padding: .25em .7em; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
th { background: #f6f6f6; font-weight: 600; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure.plot { margin: .5em 0 1.2em; } div.figures { display: flex; flex-wrap: wrap; gap: 0 2em; } figure.plot svg { max-width: 100%; height: auto; } figcaption { color: #555; font-size: .92em; }
.warn { color: #a33; } span.flag, span.status { white-space: nowrap; } span.status { font-weight: 600; } .missing { color: #666; font-style: italic; padding: .6em; background: #f8f8f8; border-left: 3px solid #ccc; }
dl.legend { font-size: .9em; color: #444; } dl.legend dt { font-weight: 600; float: left; clear: left; margin-right: .5em; } dl.legend dd { margin: 0 0 .2em 0; }
article.callpath { border-top: 1px dashed #ddd; } footer { margin-top: 3em; color: #888; font-size: .85em; }
`;
