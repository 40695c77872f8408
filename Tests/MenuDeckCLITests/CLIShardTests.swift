import DeckCore
import Foundation
import Testing

@testable import MenuDeckCLI

/// `deck --jobs`, `--shard K/N` and `--diners FILE`: every core and many machines give the
/// one-machine decks.
@Suite struct CLIShardTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"

  /// A users file of 300 diners beside the bundled history, so that the shards are not tiny.
  static func users(in dir: TempDir) throws -> String {
    let users = (1...300).map { "{\"id\": \"d\(String(format: "%03d", $0))\"}" }
    return try dir.write("users.json", "{\"users\": [\(users.joined(separator: ", "))]}")
  }

  func deck(_ extra: [String], users: String, in dir: TempDir) -> CLIRun {
    dir.run(
      [
        "deck", "--config", Self.config, "--users", users, "--date", "2026-11-30", "--quiet",
      ] + extra)
  }

  @Test func everyNumberOfJobsGivesTheSameBytes() throws {
    let dir = try TempDir()
    let users = try Self.users(in: dir)
    for format in ["jsonl", "csv", "json"] {
      let one = deck(["--format", format, "--jobs", "1"], users: users, in: dir)
      #expect(one.code == .success, "\(one.stderr)")
      #expect(one.stdout.split(separator: "\n").count > 300)
      for jobs in ["2", "3", "7"] {
        let run = deck(["--format", format, "--jobs", jobs], users: users, in: dir)
        // Only the header's record of the command line (`--jobs N`) differs.
        #expect(
          CLITest.withoutArguments(run.stdout) == CLITest.withoutArguments(one.stdout),
          "\(format), --jobs \(jobs)")
      }
    }
  }

  /// Lines sorted stably by their diner (the JSON `user` field, or the CSV's first column).
  static func sortedByDiner(_ lines: [Substring], csv: Bool) -> [Substring] {
    func diner(_ line: Substring) -> String {
      if csv { return String(line.prefix { $0 != "," }) }
      let object = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
      return object["user"] as! String
    }
    return lines.enumerated().sorted { a, b in
      let (x, y) = (diner(a.element), diner(b.element))
      return x == y ? a.offset < b.offset : x.utf8.lexicographicallyPrecedes(y.utf8)
    }.map(\.element)
  }

  @Test(arguments: ["jsonl", "csv"])
  func shardsConcatenatedAndSortedAreTheOneMachineOutput(format: String) throws {
    let dir = try TempDir()
    let users = try Self.users(in: dir)
    let whole = deck(["--format", format], users: users, in: dir)
    #expect(whole.code == .success, "\(whole.stderr)")
    let csv = format == "csv"
    for n in [1, 3, 4] {
      var lines: [Substring] = []
      var header: Substring?
      for k in 1...n {
        let part = deck(["--format", format, "--shard", "\(k)/\(n)"], users: users, in: dir)
        #expect(part.code == .success, "\(part.stderr)")
        var partLines = part.stdout.split(separator: "\n")
        if csv {
          let h = partLines.removeFirst()
          #expect(header == nil || header == h)
          header = h
        }
        #expect(!partLines.isEmpty, "shard \(k)/\(n) is empty")
        lines += partLines
      }
      var wholeLines = whole.stdout.split(separator: "\n")
      if csv { #expect(wholeLines.removeFirst() == header) }
      #expect(Self.sortedByDiner(lines, csv: csv) == wholeLines, "\(n) shards")
    }
  }

  @Test func theDinersFileBuildsExactlyThoseDiners() throws {
    let dir = try TempDir()
    let users = try Self.users(in: dir)
    let list = try dir.write("diners.txt", "d007\r\nu01\nnewcomer\n")
    let run = deck(["--format", "jsonl", "--diners", list], users: users, in: dir)
    #expect(run.code == .success, "\(run.stderr)")
    let diners = run.stdout.split(separator: "\n").map { line in
      (try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any])["user"]
        as! String
    }
    #expect(diners == ["d007", "newcomer", "u01"])
    // The same decks as --user.
    let byUser = deck(
      ["--format", "jsonl", "--user", "d007", "--user", "u01", "--user", "newcomer"],
      users: users, in: dir)
    #expect(byUser.stdout == run.stdout)
  }

  @Test(
    "a bad diners file names its line",
    arguments: [
      ("a\n\nb\n", "diners.txt:2: empty line"),
      ("a\nb\na\n", "diners.txt:3: diner 'a' is listed twice (first at line 1)"),
    ])
  func badDinersFile(text: String, message: String) throws {
    let dir = try TempDir()
    let users = try Self.users(in: dir)
    let list = try dir.write("diners.txt", text)
    let run = deck(["--diners", list], users: users, in: dir)
    #expect(run.code == .dataError)
    #expect(run.stderr.contains(message), "\(run.stderr)")
  }

  @Test(
    "usage errors before anything is read",
    arguments: [
      (["--shard", "0/3"], "'--shard': '0/3' is out of range: give K/N"),
      (["--shard", "4/3"], "'--shard': '4/3' is out of range: give K/N"),
      (["--shard", "x"], "'--shard': 'x' is not K/N; give K/N"),
      (["--jobs", "0"], "'--jobs': '0' is out of range"),
      (["--diners", "d.txt", "--user", "u01"], "either '--user' or '--diners'"),
    ])
  func usage(extra: [String], message: String) throws {
    let dir = try TempDir()
    let run = dir.run(["deck", "--config", Self.config] + extra)
    #expect(run.code == .usage)
    #expect(run.stderr.contains(message), "\(run.stderr)")
  }

  @Test func theDinersFileIsAnInputNeverAnOutput() throws {
    let dir = try TempDir()
    let list = try dir.write("diners.txt", "u01\n")
    let run = dir.run(["deck", "--config", Self.config, "--diners", list, "--out", list])
    #expect(run.code == .usage)
    #expect(try dir.read("diners.txt") == "u01\n")
  }
}
