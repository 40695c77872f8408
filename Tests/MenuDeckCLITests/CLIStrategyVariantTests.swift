import DeckCommandLine
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// `NAME:key=value,...`: a strategy with options of its own wherever a strategy is named.
@Suite struct StrategySpellingTests {
  @Test func readsOptionsInTheirOrder() throws {
    let s = try StrategySpelling.parse("itemknn:neighbours=50,recent_days=36500")
    #expect(s.base == "itemknn")
    #expect(s.options.map(\.key) == ["neighbours", "recent_days"])
    #expect(s.options.map(\.value) == ["50", "36500"])
  }

  /// A value may hold ':' and '='; a quoted one also commas, and `\"` and `\\`.
  @Test func quotedValuesHoldCommas() throws {
    let s = try StrategySpelling.parse(#"blend:components="affinity:0.6,popularity:0.4",x=a=b"#)
    #expect(s.base == "blend")
    #expect(s.options.map(\.value) == ["affinity:0.6,popularity:0.4", "a=b"])
    let escaped = try StrategySpelling.parse(#"p:text="say:\"hi\",\\o/""#)
    #expect(escaped.options.map(\.value) == [#"say:"hi",\o/"#])
  }

  /// What `spell` writes, `parse` reads back.
  @Test func spellingRoundTrips() throws {
    let options: [(key: String, value: String)] = [
      ("components", "affinity:0.6,popularity:0.4"), ("quote", #"a"b\c"#), ("n", "5"),
    ]
    let text = StrategySpelling.spell("blend", options)
    let back = try StrategySpelling.parse(text)
    #expect(back == StrategySpelling(base: "blend", options: options))
    #expect(StrategySpelling.spell("random", []) == "random")
  }

  @Test(arguments: [
    ("itemknn:neighbours", "gives 'neighbours' with no '=value'; write neighbours=VALUE"),
    ("itemknn:", "gives no option after ':'; write itemknn:key=value,... or just itemknn"),
    ("itemknn:=5", "has '=' with no option name before it"),
    ("itemknn:a=1,,b=2", "has an empty option (two commas, or one at an end)"),
    ("itemknn:a=1,", "ends with a comma"),
    ("itemknn:a=", "gives 'a=' with no value"),
    ("itemknn:a=1,a=2", "gives 'a' twice; give each option once"),
    ("itemknn:a=\"1,2", "opens a quote in the value of 'a' and never closes it"),
    ("itemknn:a=\"1\"2", "has characters after the closing quote of 'a'"),
    ("itemknn:a=1\"2", "has a quote inside the value of 'a'"),
    ("itemknn:a=\"\\x\"", "a backslash in the value of 'a' that escapes neither"),
    ("itemknn:a= 1", "holds a space"),
    ("itemknn:a=\t1", "holds white space (a tab)"),
  ])
  func refusesWhatItCannotRead(_ text: String, _ message: String) {
    #expect {
      _ = try StrategySpelling.parse(text)
    } throws: { error in
      let e = error as? StrategySpellingError
      return e?.spelling == text && e?.description.contains(message) == true
    }
  }

  /// A named configuration whose name holds a colon is that configuration, not a variant.
  @Test func aNamedConfigurationWithAColonIsItself() throws {
    var config = MenuDeckConfig()
    config.strategies["a:b=1"] = NamedStrategy(name: "a:b=1", use: "popularity", options: [:])
    let named = try #require(try config.resolveStrategy("a:b=1"))
    #expect(named.use == "popularity" && named.options.isEmpty && named.variant.isEmpty)
    let variant = try #require(try config.resolveStrategy("popularity:prior_passes=3"))
    #expect(variant.name == "popularity:prior_passes=3")
    #expect(variant.options == ["prior_passes": "3"] && variant.variant == variant.options)
    #expect(try config.resolveStrategy("nothing:a=1") == nil)
  }
}

@Suite struct CLIStrategyVariantTests {
  static let compare = [
    "compare", "--split", "2026-11-24", "--resamples", "20", "--permutations", "100",
    "--format", "json",
  ]

  static func estimates(_ r: CLIRun) throws -> [String: NSDictionary] {
    let json = try #require(try r.json() as? [String: Any])
    var out: [String: NSDictionary] = [:]
    for arm in try #require(json["arms"] as? [[String: Any]]) {
      out[try #require(arm["arm"] as? String)] = try #require(
        arm["estimates"] as? NSDictionary)
    }
    return out
  }

  /// Two variants of one strategy are two arms, named as spelled; a variant with the options
  /// of a named configuration ranks as that configuration does.
  @Test func variantsAreArmsOfTheirOwn() throws {
    let r = CLIRun(
      Self.compare + [
        "-s", "cautious-popularity", "-s", "popularity:prior_likes=1,prior_passes=9",
        "-s", "popularity:prior_passes=100", "--baseline", "cautious-popularity",
        "Data/swipes.jsonl",
      ])
    #expect(r.code == .success, "\(r.stderr)")
    let estimates = try Self.estimates(r)
    #expect(
      estimates.keys.sorted() == [
        "cautious-popularity", "popularity:prior_likes=1,prior_passes=9",
        "popularity:prior_passes=100",
      ])
    #expect(
      estimates["cautious-popularity"] == estimates["popularity:prior_likes=1,prior_passes=9"])
    #expect(estimates["cautious-popularity"] != estimates["popularity:prior_passes=100"])
    // The run header records each arm's options.
    let json = try #require(try r.json() as? [String: Any])
    let run = try #require(json["run"] as? [String: Any])
    let options = try #require(run["options"] as? [String: [String: Any]])
    #expect(options["popularity:prior_passes=100"]?["prior_passes"] as? Double == 100)
    #expect(options["popularity:prior_passes=100"]?["prior_likes"] as? Double == 1)
  }

  /// The spelling's options stay over `--option` (which is for every strategy of the run) and
  /// over the named configuration's own.
  @Test func spellingOptionsWinOverOptionAndConfiguration() throws {
    let variant = CLIRun([
      "deck", "--date", "2026-11-30", "--format", "jsonl", "-s",
      "cautious-popularity:prior_passes=1", "-o", "prior_passes=50", "-o", "prior_likes=1",
    ])
    let plain = CLIRun([
      "deck", "--date", "2026-11-30", "--format", "jsonl", "-s", "popularity:prior=fixed",
    ])
    #expect(variant.code == .success, "\(variant.stderr)")
    #expect(plain.code == .success, "\(plain.stderr)")
    func withoutStrategy(_ r: CLIRun) -> String {
      r.stdout.replacingOccurrences(of: "cautious-popularity:prior_passes=1", with: "X")
        .replacingOccurrences(of: "popularity:prior=fixed", with: "X")
    }
    #expect(!variant.stdout.isEmpty)
    #expect(withoutStrategy(variant) == withoutStrategy(plain))
    #expect(variant.stdout.contains(#""strategy":"cautious-popularity:prior_passes=1""#))
  }

  @Test func unknownOptionIsAUsageErrorWithASuggestion() {
    let r = CLIRun(
      Self.compare + ["-s", "popularity", "-s", "itemknn:neigbours=5", "Data/swipes.jsonl"])
    #expect(r.code == .usage)
    #expect(
      r.stderr.hasPrefix(
        "menudeck: error: strategy 'itemknn' has no option 'neigbours' (did you mean"
          + " 'neighbours'?); valid options: neighbours, saved_neighbours, min_similarity,"
          + " min_neighbours, left_swipes, recent_days, recent_likes, weight_popularity,"
          + " popularity, cold, cold_neighbours\n"), "\(r.stderr)")
  }

  @Test func outOfRangeValueSaysTheRange() {
    let r = CLIRun(["deck", "--date", "2026-11-30", "-s", "itemknn:neighbours=0"])
    #expect(r.code == .usage)
    #expect(
      r.stderr.hasPrefix(
        "menudeck: error: strategy 'itemknn' option 'neighbours': '0' is out of range: give a"
          + " whole number from 1 to 1000000\n"), "\(r.stderr)")
  }

  @Test func unknownBaseIsSuggestedFor() {
    let r = CLIRun(["simulate", "-s", "itemknm:neighbours=3", "--users", "5", "--days", "1"])
    #expect(r.code == .usage)
    #expect(
      r.stderr.hasPrefix(
        "menudeck: error: unknown strategy 'itemknm' (in 'itemknm:neighbours=3') (did you mean"
          + " 'itemknn'?); valid strategies: random,"), "\(r.stderr)")
  }

  @Test func malformedSpellingIsAUsageError() {
    let r = CLIRun(["deck", "--date", "2026-11-30", "-s", "itemknn:neighbours"])
    #expect(r.code == .usage)
    #expect(
      r.stderr.hasPrefix(
        "menudeck: error: the strategy 'itemknn:neighbours' gives 'neighbours' with no"
          + " '=value'; write neighbours=VALUE\n"))
  }

  /// The config's "strategy" may be a variant; one it cannot use is the config's data error.
  @Test func theConfigsStrategyMayBeAVariant() throws {
    let dir = try TempDir()
    func config(_ strategy: String) throws -> String {
      try dir.write(
        "c-\(strategy.count).json",
        """
        {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "strategy": "\(strategy)",
         "history": ["\(CLITest.repoRoot)/Data/swipes.jsonl"], "time_zone": "Asia/Tokyo"}
        """)
    }
    let good = dir.run([
      "deck", "--config", try config("popularity:prior_passes=9"), "--date", "2026-11-30",
      "--format", "jsonl",
    ])
    #expect(good.code == .success, "\(good.stderr)")
    #expect(good.stdout.contains(#""strategy":"popularity:prior_passes=9""#))
    let path = try config("popularity:prior_pases=9")
    let bad = dir.run(["deck", "--config", path, "--date", "2026-11-30"])
    #expect(bad.code == .dataError)
    #expect(
      bad.stderr.hasPrefix(
        "menudeck: error: \(path): strategy 'popularity' has no option 'prior_pases' (did you"
          + " mean 'prior_passes'?)"), "\(bad.stderr)")
  }

  /// `--trec DIR` names a variant's run file with its unsafe characters as `_`, and tags its
  /// lines with the whole spelling.
  @Test func trecRunsOfVariants() throws {
    let dir = try TempDir()
    let r = CLIRun(
      Self.compare + [
        "-s", "popularity", "-s", "popularity:prior_passes=100", "--trec", dir.file("trec"),
        "Data/swipes.jsonl",
      ])
    #expect(r.code == .success, "\(r.stderr)")
    let run = try dir.read("trec/popularity_prior_passes_100.run")
    let first = try #require(run.split(separator: "\n").first)
    #expect(first.hasSuffix(" popularity:prior_passes=100"))
  }

  @Test func fallbackMayBeAVariant() {
    let r = CLIRun([
      "deck", "--date", "2026-11-30", "-s", "popularity", "--fallback",
      "popularity:prior_passes=9", "--format", "jsonl",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    let bad = CLIRun([
      "deck", "--date", "2026-11-30", "-s", "popularity", "--fallback", "popularity:x",
    ])
    #expect(bad.code == .usage)
    #expect(bad.stderr.hasPrefix("menudeck: error: --fallback: the strategy 'popularity:x'"))
  }
}
