import Foundation
import Testing

@testable import MenuDeckCLI

/// Same inputs, seed and date give the same bytes, whatever the order of users and events and
/// whichever catalog format.
@Suite struct CLIDeterminismTests {
  static let date = "2026-11-30"

  /// A small seeded permutation for the tests' own shuffles (SplitMix64 + Fisher-Yates).
  static func shuffled<T>(_ values: [T], seed: UInt64) -> [T] {
    var state = seed
    func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    var a = values
    if a.count < 2 { return a }
    for i in stride(from: a.count - 1, to: 0, by: -1) {
      let j = Int(next() % UInt64(i + 1))
      a.swapAt(i, j)
    }
    return a
  }

  /// The bundled config with its three paths replaced, written to `dir`/menudeck.json.
  static func writeConfig(
    in dir: TempDir, catalog: String, users: String, history: String
  ) throws -> String {
    var text = String(decoding: try CLITest.repoFile("Config/menudeck.json"), as: UTF8.self)
    for (old, new) in [
      (#""catalog": "../Data/catalog.json""#, #""catalog": "\#(catalog)""#),
      (#""users": "../Data/users.json""#, #""users": "\#(users)""#),
      (#""history": ["../Data/swipes.jsonl"]"#, #""history": ["\#(history)"]"#),
    ] {
      #expect(text.contains(old), "Config/menudeck.json no longer has \(old)")
      text = text.replacingOccurrences(of: old, with: new)
    }
    return try dir.write("menudeck.json", text)
  }

  /// Data/users.json with its users in a different order (one user per line in that file).
  static func shuffledUsersJSON() throws -> String {
    let text = String(decoding: try CLITest.repoFile("Data/users.json"), as: UTF8.self)
    let lines = text.split(separator: "\n")
    var users: [String] = []
    for line in lines where line.trimmingCharacters(in: .whitespaces).hasPrefix("{\"id\"") {
      var entry = line.trimmingCharacters(in: .whitespaces)
      if entry.hasSuffix(",") { entry.removeLast() }
      users.append(entry)
    }
    #expect(users.count == 48)
    let order = shuffled(users, seed: 7)
    #expect(order != users)
    return "{\n  \"users\": [\n    " + order.joined(separator: ",\n    ") + "\n  ]\n}\n"
  }

  static func shuffledEvents() throws -> String {
    let text = String(decoding: try CLITest.repoFile("Data/swipes.jsonl"), as: UTF8.self)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 3411)
    let order = shuffled(lines, seed: 11)
    #expect(order != lines)
    return order.joined(separator: "\n") + "\n"
  }

  @Test("als: the same decks for --jobs 1, 2 and 3 (its fit runs on the run's threads)")
  func alsSameBytesForEveryJobs() {
    func decks(_ jobs: String) -> CLIRun {
      CLIRun(["deck", "--date", Self.date, "--strategy", "als", "--format", "csv", "--jobs", jobs])
    }
    let one = decks("1")
    #expect(one.code == .success)
    #expect(one.stdout.contains("als"))
    for jobs in ["2", "3"] {
      let other = decks(jobs)
      #expect(other.code == .success)
      #expect(other.stdoutBytes == one.stdoutBytes, "--jobs \(jobs)")
    }
  }

  @Test func twoRunsGiveIdenticalBytes() {
    for format in ["json", "jsonl", "csv", "table"] {
      let a = CLIRun(["deck", "--date", Self.date, "--format", format])
      let b = CLIRun(["deck", "--date", Self.date, "--format", format])
      #expect(a.code == .success)
      #expect(!a.stdoutBytes.isEmpty)
      #expect(a.stdoutBytes == b.stdoutBytes, "format \(format)")
      #expect(a.stderr == b.stderr)
    }
  }

  @Test func shuffledUsersShuffledEventsAndTheCSVCatalogGiveTheSameDecks() throws {
    let dir = try TempDir()
    try dir.write("users.json", Self.shuffledUsersJSON())
    try dir.write("swipes.jsonl", Self.shuffledEvents())
    try dir.write("catalog.csv", CLITest.repoFile("Data/catalog.csv"))
    let config = try Self.writeConfig(
      in: dir, catalog: "catalog.csv", users: "users.json", history: "swipes.jsonl")

    let bundled = CLIRun(["deck", "--date", Self.date, "--format", "jsonl"])
    let copy = dir.run(["deck", "--config", config, "--date", Self.date, "--format", "jsonl"])
    #expect(bundled.code == .success)
    #expect(copy.code == .success)
    #expect(copy.stderr == bundled.stderr)
    #expect(bundled.stdoutLines.count == 49)
    #expect(copy.stdoutBytes == bundled.stdoutBytes)

    // JSON: the decks are the same; only the run header's paths and hashes differ.
    let bundledJSON = CLIRun(["deck", "--date", Self.date, "--format", "json"])
    let copyJSON = dir.run(["deck", "--config", config, "--date", Self.date, "--format", "json"])
    #expect(bundledJSON.jsonDeckLines.count == 48)
    #expect(copyJSON.jsonDeckLines == bundledJSON.jsonDeckLines)
    #expect(copyJSON.stdoutLines.first != bundledJSON.stdoutLines.first)

    for format in ["csv", "table"] {
      let a = CLIRun(["deck", "--date", Self.date, "--format", format])
      let b = dir.run(["deck", "--config", config, "--date", Self.date, "--format", format])
      #expect(a.stdoutBytes == b.stdoutBytes, "format \(format)")
    }
  }

  @Test func csvUsersAndCSVEventsGiveTheSameDecks() throws {
    let dir = try TempDir()
    for name in ["catalog.csv", "users.csv", "swipes.csv"] {
      try dir.write(name, CLITest.repoFile("Data/" + name))
    }
    let config = try Self.writeConfig(
      in: dir, catalog: "catalog.csv", users: "users.csv", history: "swipes.csv")
    let bundled = CLIRun(["deck", "--date", Self.date, "--format", "jsonl"])
    let copy = dir.run(["deck", "--config", config, "--date", Self.date, "--format", "jsonl"])
    #expect(copy.code == .success)
    #expect(copy.stdoutBytes == bundled.stdoutBytes)
  }

  /// Command-line overrides of the config's paths are the same as editing the config.
  @Test func overridesOnTheCommandLine() throws {
    let dir = try TempDir()
    try dir.write("users.json", Self.shuffledUsersJSON())
    try dir.write("swipes.jsonl", Self.shuffledEvents())
    let bundled = CLIRun(["deck", "--date", Self.date, "--format", "jsonl"])
    let overridden = CLIRun([
      "deck", "--date", Self.date, "--format", "jsonl", "--catalog", "Data/catalog.csv",
      "--users", dir.path + "/users.json", "--history", dir.path + "/swipes.jsonl",
    ])
    #expect(overridden.code == .success)
    #expect(overridden.stdoutBytes == bundled.stdoutBytes)
  }

  @Test func seedAndDateChangeTheDecks() {
    let base = CLIRun(["deck", "--date", Self.date, "--format", "jsonl", "--strategy", "random"])
    let otherSeed = CLIRun([
      "deck", "--date", Self.date, "--format", "jsonl", "--strategy", "random", "--seed", "1",
    ])
    let otherDate = CLIRun([
      "deck", "--date", "2026-12-01", "--format", "jsonl", "--strategy", "random",
    ])
    #expect(base.code == .success)
    #expect(otherSeed.code == .success)
    #expect(otherDate.code == .success)
    #expect(base.stdoutBytes != otherSeed.stdoutBytes)
    #expect(base.stdoutBytes != otherDate.stdoutBytes)
    #expect(base.stdout.contains("\"seed\":20261130"))
    #expect(otherSeed.stdout.contains("\"seed\":1,"))
  }
}
