import DeckCore
import DeckIO
import DeckTestSupport
import Foundation
import Testing

@testable import DeckEvaluation
@testable import DeckReports

/// The arm and note names every format must escape.
let hostileName = "<script>alert(1)</script>"
let punctuatedName = "a,b\"c|d"

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite("Compare: writers")
struct ComparisonWriterTests {
  @Test func table() {
    #expect(
      text(ComparisonWriter.render(smallComparison(), format: .table)) == """
        simulation: 40 diners x 2 days from 2026-11-01

        seed:         7
        strategies:   popularity, affinity
        units:        40
        level:        95%
        resamples:    1000
        permutations: 999 per difference (--permutations): over 2 tests the smallest Holm-adjusted p-value is 0.0020
        baseline:     popularity

        estimates: value [lower, upper], 95% confidence interval
        metric                         popularity                 affinity
        decks                      120 [110, 131]           118 [109, 129]
        like_rate         0.2500 [0.2000, 0.3125]  0.3125 [0.2500, 0.3750]
        catalog_coverage                        -  0.4000 [0.4000, 0.4000]

        differences: arm - baseline, value [lower, upper] at 95%; p: two-sided paired randomization
        Holm: p adjusted by Holm's step-down method over the family of the report's 2 tests of every arm x metric
        metric                 affinity - popularity        p     Holm
        decks                            -2 [-6, +3]   0.5200   0.5200
        like_rate         +0.0625 [+0.0100, +0.1150]  <0.0001  <0.0001
        catalog_coverage                           -        -        -

        notes:
        - catalog_coverage: undefined for popularity

        """)
  }

  @Test func markdown() {
    #expect(
      text(ComparisonWriter.render(smallComparison(), format: .markdown)) == """
        # simulation: 40 diners x 2 days from 2026-11-01

        | parameter | value |
        | --- | --- |
        | seed | 7 |
        | strategies | popularity, affinity |
        | units | 40 |
        | level | 95% |
        | resamples | 1000 |
        | permutations | 999 per difference (--permutations): over 2 tests the smallest Holm-adjusted p-value is 0.0020 |
        | baseline | popularity |

        ## Estimates

        estimates: value [lower, upper], 95% confidence interval

        | metric | popularity | affinity |
        | --- | ---: | ---: |
        | decks | 120 [110, 131] | 118 [109, 129] |
        | like_rate | 0.2500 [0.2000, 0.3125] | 0.3125 [0.2500, 0.3750] |
        | catalog_coverage | - | 0.4000 [0.4000, 0.4000] |

        ## Differences

        differences: arm - baseline, value [lower, upper] at 95%; p: two-sided paired randomization
        Holm: p adjusted by Holm's step-down method over the family of the report's 2 tests of every arm x metric

        | metric | affinity - popularity | p | Holm |
        | --- | ---: | ---: | ---: |
        | decks | -2 [-6, +3] | 0.5200 | 0.5200 |
        | like_rate | +0.0625 [+0.0100, +0.1150] | &lt;0.0001 | &lt;0.0001 |
        | catalog_coverage | - | - | - |

        ## Notes

        - catalog_coverage: undefined for popularity

        """)
  }

  @Test func json() {
    #expect(
      text(ComparisonWriter.render(smallComparison(), format: .json)) == """
        {"title":"simulation: 40 diners x 2 days from 2026-11-01",
        "parameters":{"seed":"7","strategies":"popularity, affinity"},
        "units":40,"level":0.95,"resamples":1000,"baseline":"popularity",
        "significance":{"alpha":0.05,"tests":2,"permutations":999,"source":"option","needed":1000,"min_p_value":0.001,"min_p_holm":0.002,"attainable":true},
        "logging_bias":null,
        "metrics":[
        {"name":"decks","definition":"sessions","form":"total","count":true,"direction":"neither","unit":"sessions"},
        {"name":"like_rate","definition":"right_swipes / cards_shown","form":"ratio","count":false,"direction":"higher","unit":"likes per card"},
        {"name":"catalog_coverage","definition":"distinct items shown / catalog items","form":"coverage","count":false,"catalog_items":10,"direction":"neither","unit":"share of the catalog"}
        ],
        "arms":[
        {"arm":"popularity","estimates":{"decks":{"value":120,"lower":110,"upper":131},"like_rate":{"value":0.25,"lower":0.2,"upper":0.3125},"catalog_coverage":{"value":null,"lower":null,"upper":null}}},
        {"arm":"affinity","estimates":{"decks":{"value":118,"lower":108.5,"upper":129},"like_rate":{"value":0.3125,"lower":0.25,"upper":0.375},"catalog_coverage":{"value":0.4,"lower":0.4,"upper":0.4}}}
        ],
        "differences":[
        {"arm":"affinity","baseline":"popularity","estimates":{"decks":{"value":-2,"lower":-6,"upper":3,"p_value":0.52,"p_holm":0.52,"p_bh":0.52,"p_t":0.5,"p_wilcoxon":0.625},"like_rate":{"value":0.0625,"lower":0.01,"upper":0.115,"p_value":1e-05,"p_holm":2e-05,"p_bh":2e-05,"p_t":3.125e-06,"p_wilcoxon":0.000125},"catalog_coverage":{"value":null,"lower":null,"upper":null,"p_value":null,"p_holm":null,"p_bh":null,"p_t":null,"p_wilcoxon":null}}}
        ],
        "daily":[
        {"arm":"popularity","metric":"like_rate","points":[{"day":"2026-11-01","value":0.25,"lower":null,"upper":null},{"day":"2026-11-02","value":null,"lower":null,"upper":null}]},
        {"arm":"affinity","metric":"like_rate","points":[{"day":"2026-11-01","value":0.3,"lower":0.25,"upper":0.375},{"day":"2026-11-02","value":0.325,"lower":null,"upper":null}]}
        ],
        "top_dishes":[],
        "notes":["catalog_coverage: undefined for popularity"]}

        """)
  }

  @Test func jsonParses() throws {
    let data = Data(ComparisonWriter.render(smallComparison(), format: .json))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let arms = try #require(object["arms"] as? [[String: Any]])
    let estimates = try #require(arms[1]["estimates"] as? [String: [String: Any]])
    #expect(estimates["decks"]?["lower"] as? Double == 108.5)
    #expect(estimates["like_rate"]?["upper"] as? Double == 0.375)
    let first = try #require(arms[0]["estimates"] as? [String: [String: Any]])
    #expect(first["catalog_coverage"]?["value"] is NSNull)
    #expect(object["baseline"] as? String == "popularity")
  }

  @Test func jsonWithoutBaselineOrDays() throws {
    var report = smallComparison()
    report.baseline = nil
    report.differences = []
    report.significance = nil
    report.daily = []
    report.notes = []
    let out = text(ComparisonWriter.render(report, format: .json))
    #expect(out.contains("\"baseline\":null,\n\"significance\":null,\n\"logging_bias\":null,"))
    #expect(out.contains("\"differences\":[],\n\"daily\":[],\n\"top_dishes\":[],\n\"notes\":[]}\n"))
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
    #expect((object["differences"] as? [Any])?.isEmpty == true)
  }

  @Test func csv() {
    #expect(
      text(ComparisonWriter.render(smallComparison(), format: .csv)) == """
        kind,arm,baseline,metric,day,value,lower,upper,p_value,p_holm,p_bh,p_t,p_wilcoxon,min_p_holm,significance_attainable
        estimate,popularity,,decks,,120.0,110.0,131.0,,,,,,,
        estimate,popularity,,like_rate,,0.25,0.2,0.3125,,,,,,,
        estimate,popularity,,catalog_coverage,,,,,,,,,,,
        estimate,affinity,,decks,,118.0,108.5,129.0,,,,,,,
        estimate,affinity,,like_rate,,0.3125,0.25,0.375,,,,,,,
        estimate,affinity,,catalog_coverage,,0.4,0.4,0.4,,,,,,,
        difference,affinity,popularity,decks,,-2.0,-6.0,3.0,0.52,0.52,0.52,0.5,0.625,0.002,true
        difference,affinity,popularity,like_rate,,0.0625,0.01,0.115,1e-05,2e-05,2e-05,3.125e-06,0.000125,0.002,true
        difference,affinity,popularity,catalog_coverage,,,,,,,,,,0.002,true
        daily,popularity,,like_rate,2026-11-01,0.25,,,,,,,,,
        daily,popularity,,like_rate,2026-11-02,,,,,,,,,,
        daily,affinity,,like_rate,2026-11-01,0.3,0.25,0.375,,,,,,,
        daily,affinity,,like_rate,2026-11-02,0.325,,,,,,,,,

        """)
  }

  /// The tidy JSON Lines: the CSV's rows as objects, in the same order, undefined values null.
  @Test func jsonLinesAreTheCSVRows() throws {
    let report = smallComparison()
    let csv = text(ComparisonWriter.render(report, format: .csv)).split(separator: "\n")
    let lines = text(ComparisonWriter.render(report, format: .jsonl)).split(separator: "\n")
    #expect(lines.count == csv.count - 1)
    #expect(
      lines[0]
        == #"{"kind":"estimate","arm":"popularity","baseline":null,"metric":"decks","day":null,"value":120.0,"lower":110.0,"upper":131.0,"p_value":null,"p_holm":null,"p_bh":null,"p_t":null,"p_wilcoxon":null,"min_p_holm":null,"significance_attainable":null}"#
    )
    for (line, row) in zip(lines, csv.dropFirst()) {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let fields = row.split(separator: ",", omittingEmptySubsequences: false)
      for (key, field) in zip(ComparisonWriter.tidyColumns, fields) {
        if field.isEmpty {
          #expect(object[key] is NSNull, "\(key) in \(line)")
        } else if field == "true" || field == "false" {
          #expect((object[key] as? Bool) == (field == "true"), "\(key) in \(line)")
        } else if let number = Double(field) {
          #expect((object[key] as? Double) == number, "\(key) in \(line)")
        } else {
          #expect((object[key] as? String) == String(field), "\(key) in \(line)")
        }
      }
    }
  }

  /// When no difference can be significant, and on logs without --ope, every format says so:
  /// a note in the table, Markdown and JSON, the JSON's fields, and the CSV's last columns.
  @Test func everyFormatSaysWhenNoDifferenceCanBeSignificant() throws {
    var report = smallComparison(notes: [])
    report.significance = PermutationCount.choose(tests: 2, alpha: 0.05, units: 40, given: 20)
    report.loggingBias = LoggingBias(evaluationEvents: 100, withPropensity: 0, byDate: true)
    let warning = try #require(report.significance?.unattainable)
    #expect(
      warning
        == "no difference can be significant at 0.05: with 20 permutations the smallest p-value"
        + " is 1 / 21, so over 2 tests the smallest Holm-adjusted p-value is 0.0953; give"
        + " --permutations 1000 or more (or leave --permutations out: the default chooses"
        + " enough)")
    let bias = report.loggingBias!.note
    #expect(bias.contains("log each card's position and propensity"))
    let table = text(ComparisonWriter.render(report, format: .table))
    #expect(table.hasSuffix("notes:\n- " + bias + "\n- " + warning + "\n"))
    let markdown = text(ComparisonWriter.render(report, format: .markdown))
    #expect(markdown.contains("## Notes\n\n- " + ReportText.markdown(bias, lineStart: true)))
    #expect(markdown.contains("\n- " + ReportText.markdown(warning, lineStart: true) + "\n"))
    let json = text(ComparisonWriter.render(report, format: .json))
    #expect(json.contains("\"attainable\":false}"))
    #expect(json.contains("\"logging_bias\":{\"propensities\":\"none\",\"evaluation_events\":100"))
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["notes"] as? [String] == [bias, warning])
    let csv = text(ComparisonWriter.render(report, format: .csv))
    #expect(
      csv.contains(
        "\ndifference,affinity,popularity,decks,,-2.0,-6.0,3.0,0.52,0.52,0.52,0.5,0.625,"
          + "0.09523809523809523,false\n"))
    let jsonl = text(ComparisonWriter.render(report, format: .jsonl))
    #expect(jsonl.contains("\"min_p_holm\":0.09523809523809523,\"significance_attainable\":false}"))
  }

  @Test func tableWithoutBaselineHasNoDifferences() {
    var report = smallComparison()
    report.baseline = nil
    report.differences = []
    report.significance = nil
    report.notes = []
    let out = text(ComparisonWriter.render(report, format: .table))
    #expect(out.contains("baseline:   none\n"))
    #expect(!out.contains("differences"))
    #expect(!out.contains("notes"))
    #expect(out.hasSuffix("catalog_coverage                        -  0.4000 [0.4000, 0.4000]\n"))
  }

  @Test func tableSplitsWideArmsIntoPanels() {
    var report = smallComparison()
    let names = (1...5).map { "strategy-number-\($0)" }
    report.arms = names.map { ArmSummary(arm: $0, estimates: report.arms[1].estimates) }
    report.differences = []
    let lines = text(ComparisonWriter.render(report, format: .table)).split(
      separator: "\n", omittingEmptySubsequences: false)
    let headers = lines.filter { $0.hasPrefix("metric ") }
    // 16 + 5 x (2 + 23) = 141 > 120: four arms fit (116), then one.
    #expect(headers.count == 2)
    #expect(headers[0].hasSuffix("strategy-number-4"))
    #expect(headers[1].hasSuffix("strategy-number-5"))
    #expect(lines.allSatisfy { $0.count <= ComparisonWriter.tableWidth })
  }

  @Test func tableCountsEastAsianWidth() {
    let out = text(
      ComparisonWriter.render(smallComparison(arms: ["人気", "x"], notes: []), format: .table))
    // "人気" is 4 columns wide: padded on the left to its column's widest cell (23 columns).
    let header = "metric" + String(repeating: " ", count: 10 + 2 + 19) + "人気"
    #expect(out.contains("\n" + header + String(repeating: " ", count: 2 + 22) + "x\n"))
  }

  @Test(arguments: [
    (0.95, "95%"), (0.975, "97.5%"), (0.9, "90%"), (0.999_95, "99.995%"), (1.0, "100%"),
  ])
  func levelText(level: Double, expected: String) {
    #expect(ReportText.percent(level) == expected)
  }

  @Test(arguments: [
    (0.000_05, "0.0001"), (0.000_049_999, "<0.0001"), (0.0, "<0.0001"), (1.0, "1.0000"),
    (0.123_45, "0.1235"),
  ])
  func pValueText(p: Double, expected: String) {
    #expect(PValue.text(p) == expected)
  }

  @Test(arguments: [
    // Machine output carries the p-value in full precision: it reads back as itself.
    (1.0 / 400_001, "2.499993750015625e-06"), (0.001, "0.001"), (1.0, "1.0"), (0.5, "0.5"),
    (1.0 / 1001, "0.000999000999000999"), (1.0 / 3, "0.3333333333333333"),
  ])
  func aPrintedPValueIsNeverBelowItsValue(p: Double, expected: String) {
    #expect(ReportText.pValueNumber(p) == expected)
    #expect(Double(expected)! == p)
    // The table's 4 digits: 1/8001 = 0.000125 would round to 0.0001.
    #expect(PValue.text(1.0 / 8001) == "0.0002")
  }

  @Test func undefinedPartsAndNonFiniteNumbers() {
    let count = false
    #expect(
      ReportText.estimateText(Estimate(value: 0.5, lower: nil, upper: 0.75), count: count)
        == "0.5000 [-, 0.7500]")
    #expect(
      ReportText.estimateText(Estimate(value: nil, lower: 0.1, upper: 0.2), count: count)
        == "- [0.1000, 0.2000]")
    #expect(
      ReportText.estimateText(Estimate(value: .nan, lower: .infinity, upper: nil), count: count)
        == "-")
    #expect(ReportText.machineNumber(.nan, count: false) == nil)
    #expect(ReportText.machineNumber(-.infinity, count: true) == nil)
    // A sign only when the rounded number is not zero.
    #expect(ReportText.humanNumber(0.000_04, count: false, signed: true) == "0.0000")
    #expect(ReportText.humanNumber(0.000_05, count: false, signed: true) == "+0.0001")
    #expect(ReportText.humanNumber(-0.000_04, count: false, signed: true) == "0.0000")
    #expect(ReportText.humanNumber(-0.5, count: true, signed: true) == "-1")
    #expect(ReportText.humanNumber(2.5, count: true) == "3")
    #expect(ReportText.machineNumber(2.5, count: true) == "2.5")
    #expect(ReportText.machineNumber(-3, count: true) == "-3")
    #expect(ReportText.machineNumber(1e15, count: true) == "1000000000000000")
  }

  @Test func markdownEscaping() {
    let md = { ReportText.markdown($0, lineStart: false) }
    #expect(md("like_rate") == "like_rate")
    #expect(
      md("_x_ *y* `z` [l](u) ~s~ a|b c\\d")
        == "\\_x\\_ \\*y\\* \\`z\\` \\[l\\](u) \\~s\\~ a\\|b c\\\\d")
    // Block markers matter only where a line starts (a note's list item), not in table cells.
    let item = { ReportText.markdown($0, lineStart: true) }
    #expect(item("# heading") == "\\# heading")
    #expect(item("- item") == "\\- item")
    #expect(item("+ item") == "\\+ item")
    #expect(item("=") == "\\=")
    #expect(item("12. item") == "12\\. item")
    #expect(item("12) item") == "12\\) item")
    #expect(item("12 items") == "12 items")
    #expect(item("0.5200") == "0\\.5200")
    #expect(md("# heading") == "# heading")
    #expect(md("0.5200") == "0.5200")
    #expect(md("-") == "-")
    #expect(md("a\nb\r\nc\rd") == "a<br>b<br>c<br>d")
    #expect(md("a & <b> \"c\"") == "a &amp; &lt;b&gt; \"c\"")
    #expect(md("tab\there") == "tab here")
  }

  @Test func csvFields() {
    #expect(ReportText.csvField("plain") == "plain")
    #expect(ReportText.csvField("a,b\"c|d") == "\"a,b\"\"c|d\"")
    #expect(ReportText.csvField("two\nlines") == "\"two\nlines\"")
    #expect(ReportText.csvField("cr\r") == "\"cr\r\"")
    #expect(ReportText.csvField("<script>") == "<script>")
  }

  @Test func hostileNamesInMarkdown() {
    let report = smallComparison(
      arms: [hostileName, punctuatedName], notes: [hostileName, punctuatedName + "\nline 2"])
    let out = text(ComparisonWriter.render(report, format: .markdown))
    #expect(!out.contains("<script"))
    #expect(!out.contains("a,b\"c|d"))
    #expect(out.contains("| metric | &lt;script&gt;alert(1)&lt;/script&gt; | a,b\"c\\|d |\n"))
    #expect(out.contains("\n- a,b\"c\\|d<br>line 2\n"))
    // Every table row still has its column count: 3 unescaped pipes + 1.
    for line in out.split(separator: "\n") where line.hasPrefix("| metric | &lt;") {
      #expect(line.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count == 4)
    }
  }

  @Test func hostileNamesInCSV() throws {
    let report = smallComparison(arms: [hostileName, punctuatedName + "\nx"], notes: [])
    let bytes = ComparisonWriter.render(report, format: .csv)
    let table = try CSVParser.parse(bytes, file: "out.csv")
    #expect(
      table.header == [
        "kind", "arm", "baseline", "metric", "day", "value", "lower", "upper", "p_value",
        "p_holm", "p_bh", "p_t", "p_wilcoxon", "min_p_holm", "significance_attainable",
      ])
    #expect(table.records.count == 13)
    #expect(table.records[3][1] == punctuatedName + "\nx")
    #expect(table.records[6][1] == punctuatedName + "\nx")
    #expect(table.records[6][2] == hostileName)
    #expect(table.records.allSatisfy { $0.fields.count == 15 })
    #expect(text(bytes).contains("\"a,b\"\"c|d\nx\""))
  }

  @Test func hostileNamesInJSON() throws {
    let report = smallComparison(arms: [hostileName, punctuatedName], notes: [punctuatedName])
    let out = text(ComparisonWriter.render(report, format: .json))
    #expect(out.contains("\"a,b\\\"c|d\""))
    #expect(!out.contains("\"a,b\"c"))
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
    let arms = try #require(object["arms"] as? [[String: Any]])
    #expect(arms.map { $0["arm"] as? String } == [hostileName, punctuatedName])
    #expect(object["notes"] as? [String] == [punctuatedName])
    #expect(object["baseline"] as? String == hostileName)
  }

  @Test func emptyReportInEveryFormat() throws {
    let report = ComparisonReport(
      title: "", parameters: [], metrics: [], arms: [], baseline: nil, differences: [], daily: [],
      level: 0.9, resamples: 0, units: 0, notes: [])
    #expect(
      text(ComparisonWriter.render(report, format: .csv))
        == "kind,arm,baseline,metric,day,value,lower,upper,p_value,p_holm,p_bh,p_t,p_wilcoxon,"
        + "min_p_holm,significance_attainable\n")
    #expect(
      text(ComparisonWriter.render(report, format: .json)) == """
        {"title":"",
        "parameters":{},
        "units":0,"level":0.9,"resamples":0,"baseline":null,
        "significance":null,
        "logging_bias":null,
        "metrics":[],
        "arms":[],
        "differences":[],
        "daily":[],
        "top_dishes":[],
        "notes":[]}

        """)
    #expect(
      text(ComparisonWriter.render(report, format: .table)).hasSuffix(
        "confidence interval\nmetric\n"))
    #expect(
      text(ComparisonWriter.render(report, format: .markdown)).hasSuffix("| metric |\n| --- |\n"))
    let html = String(decoding: HTMLReport.render(report), as: UTF8.self)
    #expect(!html.contains("<svg") && html.hasSuffix("</html>\n"))
  }

  @Test func controlCharactersInTheTableBecomeSpaces() {
    let report = smallComparison(arms: ["two\nlines", "esc\u{1B}[31m"], notes: ["a\r\nb"])
    let out = text(ComparisonWriter.render(report, format: .table))
    #expect(!out.contains("\u{1B}"))
    #expect(out.contains("two lines"))
    #expect(out.contains("- a  b\n"))
  }
}
