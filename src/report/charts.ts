/**
 * The report's charts as inline SVG strings, drawn by hand in Node. Each builder takes plain numbers
 * from the view model, in display units (percent points for percents), and returns one self-contained
 * `<svg>`; nothing in it loads or runs anything. They were ECharts SSR until profiling the HTML step
 * showed ECharts taking ~95% of it (20–60 ms a chart) and most of a cold start's module loading.
 */
export { engineBars, groupedBars, shareBars, stackedBars, stackedHistory } from './charts/bars.js';
export { donut } from './charts/donut.js';
export { heatmap } from './charts/heatmap.js';
export { type LineSeries, trendChart } from './charts/lines.js';
export { lifeScatter } from './charts/scatter.js';
export { escapeXml, sparkline } from './charts/svg.js';
