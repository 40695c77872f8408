import Foundation
import Testing

/// The Python that loads the outputs: $MENUDECK_LOAD_PYTHON, else the venv that
/// `Scripts/check-loading.py` makes (with pandas, polars and DuckDB) when it exists, else
/// `python3` on the PATH (the standard library's csv and json only). The tests install nothing.
enum LoadingPython {
  static let path: String? = {
    let environment = ProcessInfo.processInfo.environment
    var candidates = [environment["MENUDECK_LOAD_PYTHON"], "/tmp/menudeck-load-venv/bin/python"]
      .compactMap { $0 }
    for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
      candidates.append("\(directory)/python3")
    }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()
}

/// Every tidy output loads as a user would load it (Scripts/check-loading.py): with Python's csv
/// and json modules always, and with pandas, polars and DuckDB, in the one-liners the docs show,
/// when the Python running it has them. Ids that look like numbers ("007", "12") stay text, days
/// are dates, the overall row is marked by a boolean, values are floating point.
@Suite(
  .enabled(
    if: MenudeckBinary.path != nil && LoadingPython.path != nil,
    "python3 or the menudeck binary is missing (run swift build; install python3)"))
struct OutputLoadingTests {
  @Test func everyTidyOutputLoadsWithItsTypes() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(LoadingPython.path))
    process.arguments = [
      CLITest.repoRoot + "/Scripts/check-loading.py", "--no-venv", "--menudeck",
      try #require(MenudeckBinary.path),
    ]
    process.currentDirectoryURL = URL(fileURLWithPath: CLITest.repoRoot)
    let dir = try TempDir("menudeck-loading")
    let outURL = dir.url("out")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    process.standardOutput = out
    process.standardError = out
    try process.run()
    process.waitUntilExit()
    try out.close()
    let text = try dir.read("out")
    #expect(process.terminationStatus == 0, "\(text)")
    #expect(text.contains("PASS: "), "\(text)")
    // The standard library's check ran on every output, each with records.
    for name in [
      "decks.csv", "decks.jsonl", "stats.csv", "stats.jsonl", "simulate.csv", "simulate.jsonl",
      "events.csv", "events.jsonl", "compare.csv", "compare.jsonl", "per-diner.csv",
      "strategies.jsonl",
    ] {
      #expect(
        text.split(separator: "\n").contains {
          $0.hasPrefix(name + " ") && $0.contains("python csv/json") && !$0.contains(" 0 records")
        }, "\(name): \(text)")
    }
    // Loaders that are not installed say so; those that are ran on every output.
    for library in ["pandas", "polars", "duckdb"] where !text.contains("SKIP: \(library)") {
      #expect(text.contains("strategies.jsonl   \(library)"), "\(library): \(text)")
    }
  }
}
