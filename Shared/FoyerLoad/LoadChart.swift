public import FoyerClient

/// The report's per-second timeline as a chart: throughput (requests and errors per second) above latency (p50
/// and p99 per second), as a standalone SVG or a self-contained HTML page (the SVG inline, the summary table, no
/// scripts, nothing fetched).
public enum LoadChart {
    /// What `--report` writes, chosen by the file's extension.
    public enum Format: Sendable {
        case svg, html

        /// `.svg` or `.html`/`.htm`; anything else is `invalid-input`.
        public init(path: String) throws(FoyerError) {
            let name = path.lowercased()
            if name.hasSuffix(".svg") {
                self = .svg
            } else if name.hasSuffix(".html") || name.hasSuffix(".htm") {
                self = .html
            } else {
                throw .invalidInput("--report \(path): the file must end in .html or .svg")
            }
        }
    }

    /// The chart or page for `report`, in `format`.
    public static func render(_ report: LoadReport, as format: Format) -> String {
        switch format {
        case .svg: svg(report)
        case .html: html(report)
        }
    }

    /// One plotted line.
    struct Series {
        let name: String
        let colour: String
        let values: [Double]
    }

    static let width = 900
    static let panelHeight = 240
    static let margin = (left: 70, right: 150, top: 40, bottom: 40)

    /// The chart as an SVG document.
    public static func svg(_ report: LoadReport) -> String {
        let timeline = report.timeline
        let throughput = [
            Series(name: "requests/s", colour: "#1f77b4", values: timeline.map { Double($0.requests) }),
            Series(name: "errors/s", colour: "#d62728", values: timeline.map { Double($0.errors) }),
        ]
        let latency = [
            Series(name: "p50 ms", colour: "#2ca02c", values: timeline.map { Double($0.p50Nanoseconds) / 1e6 }),
            Series(name: "p99 ms", colour: "#ff7f0e", values: timeline.map { Double($0.p99Nanoseconds) / 1e6 }),
        ]
        let height = margin.top + 2 * (panelHeight + margin.bottom + margin.top)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="12">
            <title>\(escape(report.headline))</title>
            <rect width="\(width)" height="\(height)" fill="white"/>

            """
        svg += panel(title: "Throughput (per second)", series: throughput, top: margin.top)
        svg += panel(title: "Latency (ms)", series: latency, top: 2 * margin.top + panelHeight + margin.bottom)
        svg += "</svg>\n"
        return svg
    }

    /// A self-contained HTML page: the headline, the SVG inline, the summary table, errors and outcomes.
    public static func html(_ report: LoadReport) -> String {
        let header = "<tr>" + LoadReport.columns.map { "<th>\(escape($0))</th>" }.joined() + "</tr>"
        let body = report.rows.map { row in
            "<tr>" + row.map { "<td>\(escape($0))</td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
        let errors = report.errorsByStatus.map { "\($0.status) \($0.count)" }.joined(separator: ", ")
        let outcomes = report.outcomesByStatus.map { "\($0.status) \($0.count)" }.joined(separator: ", ")
        let notes = (report.plan.notes + (report.stopReason.map { ["stopped early: \($0)"] } ?? []))
            .map { "<p>\(escape($0))</p>" }.joined(separator: "\n")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <title>\(escape(report.headline))</title>
            <style>
            body { font-family: sans-serif; margin: 2em; }
            table { border-collapse: collapse; }
            th, td { padding: 0.2em 0.8em; text-align: right; border-bottom: 1px solid #ddd; }
            th:first-child, td:first-child { text-align: left; }
            </style>
            </head>
            <body>
            <h1>\(escape(report.headline))</h1>
            <p>\(report.requests) requests in \(LoadReport.decimal(report.elapsed.secondsValue, places: 1)) s \
            (\(LoadReport.decimal(report.throughput, places: 1))/s), \(report.iterations) iterations, \
            \(report.errors) errors, \(report.outcomes) expected outcomes.</p>
            \(svg(report))
            <table>
            \(header)
            \(body)
            </table>
            <p>Errors by status: \(escape(errors.isEmpty ? "none" : errors))</p>
            <p>Expected outcomes: \(escape(outcomes.isEmpty ? "none" : outcomes))</p>
            \(notes)
            </body>
            </html>

            """
    }

    /// One panel: axes, grid, ticks, the series as polylines and a legend.
    static func panel(title: String, series: [Series], top: Int) -> String {
        let left = margin.left
        let plotWidth = width - margin.left - margin.right
        let count = series.first?.values.count ?? 0
        let ceiling = niceCeiling(series.flatMap(\.values).max() ?? 0)
        let xSpan = Double(max(count - 1, 1))
        func x(_ index: Int) -> Double { Double(left) + Double(index) / xSpan * Double(plotWidth) }
        func y(_ value: Double) -> Double { Double(top + panelHeight) - value / ceiling * Double(panelHeight) }

        var out = "<g class=\"panel\">\n"
        out += "<text x=\"\(left)\" y=\"\(top - 12)\" font-size=\"14\" font-weight=\"bold\">\(escape(title))</text>\n"
        for step in 0...4 {
            let value = ceiling * Double(step) / 4
            let position = format(y(value))
            out += "<line x1=\"\(left)\" y1=\"\(position)\" x2=\"\(left + plotWidth)\" y2=\"\(position)\" "
            out += "stroke=\"#e0e0e0\"/>\n"
            out += "<text x=\"\(left - 6)\" y=\"\(position)\" text-anchor=\"end\" dominant-baseline=\"middle\">"
            out += "\(escape(label(value)))</text>\n"
        }
        let tickEvery = max(1, niceCeiling(Double(count) / 10))
        var second = 0
        while second < max(count, 1) {
            out += "<text x=\"\(format(x(second)))\" y=\"\(top + panelHeight + 16)\" text-anchor=\"middle\">"
            out += "\(second)s</text>\n"
            second += Int(tickEvery)
        }
        out += "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(panelHeight)\" fill=\"none\" "
        out += "stroke=\"#888\"/>\n"
        for (index, line) in series.enumerated() {
            let points = line.values.enumerated().map { "\(format(x($0.offset))),\(format(y($0.element)))" }
            out += "<polyline data-series=\"\(escape(line.name))\" fill=\"none\" stroke=\"\(line.colour)\" "
            out += "stroke-width=\"1.5\" points=\"\(points.joined(separator: " "))\"/>\n"
            if count <= 30 {
                for (offset, value) in line.values.enumerated() {
                    out += "<circle cx=\"\(format(x(offset)))\" cy=\"\(format(y(value)))\" r=\"2.5\" "
                    out += "fill=\"\(line.colour)\"/>\n"
                }
            }
            let legendY = top + 14 + index * 18
            out += "<line x1=\"\(left + plotWidth + 12)\" y1=\"\(legendY)\" x2=\"\(left + plotWidth + 32)\" "
            out += "y2=\"\(legendY)\" stroke=\"\(line.colour)\" stroke-width=\"3\"/>\n"
            out += "<text x=\"\(left + plotWidth + 38)\" y=\"\(legendY)\" dominant-baseline=\"middle\">"
            out += "\(escape(line.name))</text>\n"
        }
        return out + "</g>\n"
    }

    /// The smallest of 1, 2, 5 times a power of ten that is at least `value` (1 for zero or less).
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        var power = 1.0
        while power * 10 <= value { power *= 10 }
        while power > value { power /= 10 }
        for factor in [1.0, 2, 5, 10] where factor * power >= value { return factor * power }
        return 10 * power
    }

    static func label(_ value: Double) -> String {
        value == value.rounded() || value >= 100
            ? LoadReport.decimal(value, places: 0) : LoadReport.decimal(value, places: value < 1 ? 3 : 1)
    }

    static func format(_ value: Double) -> String { LoadReport.decimal(value, places: 1) }

    /// Text safe inside XML content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
