import Foundation
import FoyerClient
import Testing

@testable import FoyerLoad

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("Load charts")
struct LoadChartTests {
    @Test("the SVG is well-formed XML with a polyline per series and a point per second")
    func svg() throws {
        let report = try LoadReportTests.journeyReport()
        let elements = try XMLElements(LoadChart.svg(report))
        #expect(elements.names.first == "svg")
        let series = elements.all("polyline").map { $0["data-series"] ?? "" }
        #expect(series == ["requests/s", "errors/s", "p50 ms", "p99 ms"])
        for line in elements.all("polyline") {
            #expect(line["points"]?.split(separator: " ").count == report.timeline.count)
        }
        // The throughput line's points: 22 then 2 requests, on a 0–50 axis.
        let requests = try #require(elements.all("polyline").first?["points"])
        let heights = requests.split(separator: " ").compactMap { $0.split(separator: ",").last.flatMap { Double($0) } }
        #expect(heights.count == 2)
        #expect(heights[0] < heights[1], "more requests are drawn higher up")
    }

    @Test("the HTML page is self-contained: the SVG inline, the table, no scripts or external links")
    func html() throws {
        let report = try LoadReportTests.journeyReport()
        let page = LoadChart.html(report)
        let elements = try XMLElements(page)
        #expect(elements.names.first == "html")
        #expect(elements.all("svg").count == 1)
        #expect(elements.all("polyline").count == 4)
        #expect(elements.all("tr").count == report.operations.count + 2)
        #expect(elements.all("script").isEmpty)
        #expect(page.components(separatedBy: "http").count == 2, "a URL other than the SVG namespace")
        #expect(page.contains("quota-exceeded 1"))
    }

    @Test("an empty run still makes a valid chart")
    func empty() throws {
        let recorder = LoadRecorder()
        let report = recorder.report(
            plan: try LoadPlan(scenario: .refresh),
            elapsed: .zero,
            stopReason: "stopped <early>"
        )
        _ = try XMLElements(LoadChart.svg(report))
        let page = LoadChart.html(report)
        _ = try XMLElements(page)
        #expect(page.contains("stopped &lt;early&gt;"))
    }

    @Test("the format follows the extension")
    func format() throws {
        #expect(try LoadChart.Format(path: "run.svg") == .svg)
        #expect(try LoadChart.Format(path: "out/Run.HTML") == .html)
        #expect(try LoadChart.Format(path: "run.htm") == .html)
        #expect(throws: FoyerError.invalidInput) { try LoadChart.Format(path: "run.png") }
    }

    @Test(
        "axis maxima are 1, 2 or 5 times a power of ten",
        arguments: [
            (0.0, 1.0), (0.3, 0.5), (1, 1), (1.1, 2), (3, 5), (7, 10), (22, 50), (101, 200), (4999, 5000),
        ]
    )
    func niceCeiling(value: Double, expected: Double) {
        #expect(abs(LoadChart.niceCeiling(value) - expected) < 1e-9)
    }
}

/// The elements of an XML document, in document order, with their attributes.
struct XMLElements {
    private(set) var names: [String] = []
    private(set) var attributes: [[String: String]] = []

    init(_ text: String) throws {
        let parser = XMLParser(data: Data(text.utf8))
        let collector = Collector()
        parser.delegate = collector
        guard parser.parse() else {
            throw XMLFailure(description: "not well-formed: \(String(describing: parser.parserError))")
        }
        names = collector.names
        attributes = collector.attributes
    }

    func all(_ name: String) -> [[String: String]] {
        zip(names, attributes).filter { $0.0 == name }.map(\.1)
    }

    struct XMLFailure: Error, CustomStringConvertible {
        let description: String
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var names: [String] = []
        var attributes: [[String: String]] = []

        func parser(
            _ parser: XMLParser,
            didStartElement elementName: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String]
        ) {
            names.append(elementName)
            self.attributes.append(attributes)
        }
    }
}
