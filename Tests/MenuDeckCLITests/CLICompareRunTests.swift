import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// `compare --k 1,5,10` (several cut-offs in one run) and `compare --run FILE` (a TREC run made
/// elsewhere, evaluated beside the strategies).
@Suite struct CLICompareCutoffTests {
  static let base = [
    "compare", "-s", "popularity", "-s", "affinity", "--baseline", "popularity", "--split",
    "2026-11-24", "--resamples", "30", "--format", "json",
    // A fixed count: by default the permutations grow with the family, which grows with the
    // cut-offs, and the p-values at a cut-off would then differ in their last draws.
    "--permutations", "1000",
  ]

  static func report(_ more: [String]) throws -> [String: Any] {
    let r = CLIRun(base + more + ["Data/swipes.jsonl"])
    #expect(r.code == .success, "\(r.stderr)")
    return try #require(try r.json() as? [String: Any])
  }

  static func metricNames(_ json: [String: Any]) throws -> [String] {
    try #require(json["metrics"] as? [[String: Any]]).compactMap { $0["name"] as? String }
  }

  /// Per arm, per metric: the estimate object (value, lower, upper).
  static func estimates(_ json: [String: Any]) throws -> [String: [String: NSDictionary]] {
    var out: [String: [String: NSDictionary]] = [:]
    for arm in try #require(json["arms"] as? [[String: Any]]) {
      let name = try #require(arm["arm"] as? String)
      out[name] = try #require(arm["estimates"] as? [String: NSDictionary])
    }
    return out
  }

  static func differences(_ json: [String: Any]) throws -> [String: [String: NSDictionary]] {
    var out: [String: [String: NSDictionary]] = [:]
    for d in try #require(json["differences"] as? [[String: Any]]) {
      let name = try #require(d["arm"] as? String)
      out[name] = try #require(d["estimates"] as? [String: NSDictionary])
    }
    return out
  }

  @Test func everyMetricAtKIsReportedAtEveryCutoff() throws {
    let json = try Self.report(["--k", "1,5,10"])
    let names = try Self.metricNames(json)
    var expected: [String] = []
    for stem in ["precision", "recall", "ndcg", "map"] {
      expected += ["\(stem)_at_1", "\(stem)_at_5", "\(stem)_at_10"]
    }
    expected += ["mrr", "hit_rate_at_1", "hit_rate_at_5", "hit_rate_at_10"]
    expected += ["catalog_coverage", "novelty", "intra_list_diversity", "popularity_bias"]
    #expect(names == expected)
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(parameters["k"] as? [Int] == [1, 5, 10])
    #expect(parameters["deck_size"] as? Int == 10, "the deck holds the largest cut-off")
    #expect((json["title"] as? String)?.hasSuffix("k = 1, 5, 10") == true)
  }

  /// The same deck (10 cards) evaluated at 1, 5 and 10 at once or at one cut-off: the same
  /// estimates, intervals and differences at the shared cut-off, bit for bit; coverage,
  /// novelty, diversity and popularity bias are those at the largest cut-off.
  @Test func severalCutoffsEqualOneCutoffAtATime() throws {
    let many = try Self.report(["--k", "1,5,10"])
    let at5 = try Self.report(["--k", "5", "--size", "10"])
    let at10 = try Self.report(["--k", "10"])
    let manyEstimates = try Self.estimates(many)
    let manyDifferences = try Self.differences(many)
    for (single, names) in [
      (at5, ["precision_at_5", "recall_at_5", "ndcg_at_5", "map_at_5", "hit_rate_at_5", "mrr"]),
      (
        at10,
        [
          "precision_at_10", "ndcg_at_10", "hit_rate_at_10", "mrr", "catalog_coverage", "novelty",
          "intra_list_diversity", "popularity_bias",
        ]
      ),
    ] {
      let estimates = try Self.estimates(single)
      let differences = try Self.differences(single)
      #expect(Set(try Self.metricNames(single)).isSubset(of: try Self.metricNames(many)))
      for name in names {
        for arm in ["popularity", "affinity"] {
          let a = try #require(manyEstimates[arm]?[name])
          #expect(a == estimates[arm]?[name], "\(arm) \(name)")
        }
        // Holm and BH depend on the family's size, which grows with the cut-offs.
        func unadjusted(_ d: NSDictionary?) throws -> NSDictionary {
          let copy = try #require(d?.mutableCopy() as? NSMutableDictionary)
          copy.removeObjects(forKeys: ["p_holm", "p_bh"])
          return copy
        }
        let one = try unadjusted(differences["affinity"]?[name])
        let all = try unadjusted(manyDifferences["affinity"]?[name])
        #expect(all == one, "\(name)")
      }
    }
    // Without --k the one cut-off is the deck size.
    let plain = try Self.report([])
    #expect(try Self.estimates(plain) == (try Self.estimates(at10)))
  }

  /// The TREC runs hold the whole deck: the largest cut-off, or --size when it is larger.
  @Test func trecRunsHoldTheWholeDeck() throws {
    let dir = try TempDir("menudeck-kruns")
    for (more, cards) in [(["--k", "1,3"], 3), (["--k", "2", "--size", "4"], 4)] {
      let r = CLIRun(
        Self.base + more + ["--trec", dir.file("t"), CLITest.repoRoot + "/Data/swipes.jsonl"])
      #expect(r.code == .success, "\(r.stderr)")
      let run = try dir.read("t/popularity.run")
      var perDiner: [Substring: Int] = [:]
      for line in run.split(separator: "\n") {
        perDiner[line.split(separator: " ")[0], default: 0] += 1
      }
      #expect(!perDiner.isEmpty)
      #expect(perDiner.values.allSatisfy { $0 == cards }, "\(more)")
    }
  }

  static let badCutoffs: [([String], String)] = [
    (["--k", "5,1"], "'--k' takes its cut-offs in ascending order: give 1,5"),
    (["--k", "1,5,5"], "'--k' gives the cut-off 5 twice; give each once"),
    (["--k", "0,5"], "'--k': '0' is out of range: give a whole number from 1 to 10000"),
    (["--k", "10001"], "'--k': '10001' is out of range: give a whole number from 1 to 10000"),
    (["--k", "1,,5"], "'--k' takes cut-offs as whole numbers separated by commas, e.g. 1,5,10"),
    (["--k", "five"], "'--k' takes cut-offs as whole numbers separated by commas"),
    (["--k", "-1"], "'--k' takes cut-offs as whole numbers separated by commas"),
    (
      ["--k", (1...21).map(String.init).joined(separator: ",")],
      "'--k' takes at most 20 cut-offs (each adds five metrics per strategy), got 21"
    ),
    (
      ["--k", "1,5,10", "--size", "8"],
      "'--size' 8 is smaller than the largest '--k' 10: the deck must hold the top 10 cards"
    ),
  ]

  @Test(arguments: badCutoffs)
  func badCutoffsAreUsageErrors(more: [String], message: String) {
    let r = CLIRun(Self.base + more + ["Data/swipes.jsonl"])
    #expect(r.code == .usage)
    #expect(r.stderr.contains(message), "\(r.stderr)")
  }
}

@Suite struct CLICompareRunTests {
  /// A strategy's `--trec` run fed back with `--run` is that strategy, to the last bit: the
  /// same estimates and intervals, the same difference from the baseline (a run may be the
  /// baseline) and the same per-diner rows.
  @Test func aStrategysTrecRunReadBackIsThatStrategy() throws {
    let dir = try TempDir("menudeck-kruns")
    let log = CLITest.repoRoot + "/Data/swipes.jsonl"
    let common = [
      "compare", "--split", "2026-11-24", "--resamples", "40", "--format", "json", "--k", "1,5,10",
      "--baseline", "popularity",
    ]
    let first = CLIRun(
      common + [
        "-s", "popularity", "-s", "affinity", "--trec", dir.file("trec"), "--per-diner",
        dir.file("a.csv"), log,
      ])
    #expect(first.code == .success, "\(first.stderr)")
    // Named by its tag, `popularity`; it is the baseline.
    let second = CLIRun(
      common + [
        "-s", "affinity", "--run", dir.file("trec/popularity.run"), "--per-diner",
        dir.file("b.csv"), log,
      ])
    #expect(second.code == .success, "\(second.stderr)")
    let a = try #require(try first.json() as? [String: Any])
    let b = try #require(try second.json() as? [String: Any])
    #expect(
      try #require(b["arms"] as? [[String: Any]]).compactMap { $0["arm"] as? String } == [
        "affinity", "popularity",
      ])
    #expect(try CLICompareCutoffTests.estimates(a) == (try CLICompareCutoffTests.estimates(b)))
    #expect(
      try CLICompareCutoffTests.differences(a) == (try CLICompareCutoffTests.differences(b)))
    #expect(
      (b["parameters"] as? [String: Any])?["runs"] as? [String: String]
        == ["popularity": dir.file("trec/popularity.run")])
    func rows(_ name: String) throws -> Set<Substring> {
      Set(try dir.read(name).split(separator: "\n"))
    }
    #expect(try rows("a.csv") == (try rows("b.csv")))
    // Every evaluated diner has a deck: no note about the run.
    let notes = try #require(b["notes"] as? [String])
    #expect(!notes.contains { $0.contains("the run popularity") }, "\(notes)")
  }

  static func setUp() throws -> TempDir {
    let dir = try CLIComparePolicyTests.setUp()
    // u1 swiped oyakodon right from the split on, u2 gyudon. The run ranks oyakodon above a doc
    // no catalog holds for u1, nothing for u2, and a query that is no diner.
    try dir.write(
      "ext.run",
      """
      u1 Q0 oyakodon 1 2 ext
      u1 Q0 not-a-dish 2 1 ext
      zz Q0 gyudon 1 1 ext

      """)
    return dir
  }

  /// Beside the off-policy estimates: a run has ranking metrics only, a policy off-policy
  /// estimates only; with the run as the baseline, the off-policy differences are undefined.
  @Test func aRunBesideStrategiesAndPoliciesOffPolicy() throws {
    let dir = try Self.setUp()
    let r = CLIComparePolicyTests.compare(
      dir,
      [
        "--ope", "--policy", "mix=p.csv", "--run", "ext.run", "--baseline", "ext", "--format",
        "json", "--per-diner", "pd.csv",
      ])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try #require(try r.json() as? [String: Any])
    let arms = try #require(json["arms"] as? [[String: Any]])
    #expect(arms.compactMap { $0["arm"] as? String } == ["popularity", "ext", "mix"])
    let estimates = try CLICompareCutoffTests.estimates(json)
    func value(_ arm: String, _ metric: String) -> Any? { estimates[arm]?[metric]?["value"] }
    // u1: [oyakodon, unknown] P@2 1/2, RR 1; u2: nothing.
    #expect(value("ext", "precision_at_2") as? Double == 0.25)
    #expect(value("ext", "mrr") as? Double == 0.5)
    #expect(value("ext", "ips") is NSNull)
    #expect(value("mix", "precision_at_2") is NSNull)
    #expect(value("popularity", "ips") as? Double != nil)
    let differences = try #require(json["differences"] as? [[String: Any]])
    #expect(differences.compactMap { $0["arm"] as? String } == ["popularity"])
    let popularity = try #require(differences.first?["estimates"] as? [String: [String: Any]])
    #expect(popularity["precision_at_2"]?["value"] as? Double != nil)
    #expect(popularity["ips"]?["value"] is NSNull)
    let notes = try #require(json["notes"] as? [String])
    #expect(notes.contains { $0.hasPrefix("the run ext (ext.run) ranks nothing for 1 of the 2") })
    #expect(notes.contains { $0.hasPrefix("1 query of the run ext is not an evaluated diner") })
    #expect(notes.contains { $0.hasPrefix("1 evaluated rank of the run ext name 1 doc that is") })
    let rows = try dir.read("pd.csv").split(separator: "\n")
    #expect(rows.contains("ext,u1,precision_at_2,0.5,0.5,1"))
    #expect(rows.contains("ext,u2,precision_at_2,0.0,0,1"))
    #expect(!rows.contains { $0.hasPrefix("ext,u1,ips") })
    #expect(rows.contains("mix,u1,ips,0.5,1,2"))
    // The table and Markdown show it too.
    let table = CLIComparePolicyTests.compare(
      dir, ["--ope", "--policy", "mix=p.csv", "--run", "ext.run", "--baseline", "ext"])
    #expect(table.code == .success, "\(table.stderr)")
    #expect(table.stdout.contains("ext"))
  }

  @Test func aRunNamedOnTheCommandLineAndAgainstTwoRuns() throws {
    let dir = try Self.setUp()
    try dir.write("other.txt", "u1 Q0 gyudon 1 1 ext\nu2 Q0 gyudon 1 1 ext\n")
    // One strategy and two runs; the second named by NAME=.
    let r = CLIComparePolicyTests.compare(
      dir, ["--run", "ext.run", "--run", "mine=other.txt", "--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let estimates = try CLICompareCutoffTests.estimates(
      try #require(try r.json() as? [String: Any]))
    #expect(estimates["mine"]?["precision_at_2"]?["value"] as? Double == 0.25)
    #expect(estimates["mine"]?["mrr"]?["value"] as? Double == 0.5)
  }

  @Test func mistakes() throws {
    let dir = try Self.setUp()
    func run(_ more: [String]) -> CLIRun { CLIComparePolicyTests.compare(dir, more) }
    let taken = run(["--run", "popularity=ext.run"])
    #expect(taken.code == .usage)
    #expect(
      taken.stderr.contains(
        "the name 'popularity' of the run ext.run (given) is taken; name it with --run NAME=ext.run"
      ))
    let twice = run(["--run", "ext.run", "--run", "ext.run"])
    #expect(twice.code == .usage)
    #expect(twice.stderr.contains("the name 'ext' of the run ext.run (its tag) is taken"))
    let policyName = run(["--ope", "--run", "ext.run", "--policy", "ext=p.csv"])
    #expect(policyName.code == .usage)
    #expect(policyName.stderr.contains("the name 'ext' of '--policy ext=p.csv' is taken"))
    let baseline = run(["--run", "ext.run", "--baseline", "nope"])
    #expect(baseline.code == .usage)
    #expect(baseline.stderr.contains("compared: popularity, ext"))
    for value in ["=ext.run", "name="] {
      let bad = run(["--run", value])
      #expect(bad.code == .usage, "\(value)")
      #expect(bad.stderr.contains("'--run' takes [NAME=]FILE"), "\(bad.stderr)")
    }
    let missing = run(["--run", "nowhere.run"])
    #expect(missing.code == .noInput)
    #expect(
      missing.stderr.contains("nowhere.run: no such file (the run file)"), "\(missing.stderr)")
    try dir.write("bad.run", "u1 Q0 oyakodon 1 2 ext\nu2 Q0 gyudon first 1 ext\n")
    let malformed = run(["--run", "bad.run"])
    #expect(malformed.code == .dataError)
    #expect(
      malformed.stderr.contains("bad.run:2:14: rank \"first\" is not a whole number"),
      "\(malformed.stderr)")
    let noLogs = CLIRun(
      [
        "compare", "--config", "c.json", "-s", "popularity", "-s", "random", "--users", "5",
        "--run", "x.run",
      ],
      in: dir.path)
    #expect(noLogs.code == .usage)
    #expect(noLogs.stderr.contains("'--run' applies to logs"))
    // A run file is an input: no output may replace it.
    let clash = run(["--run", "ext.run", "--out", "ext.run"])
    #expect(clash.code == .usage, "\(clash.stderr)")
    #expect(try dir.read("ext.run").hasPrefix("u1 Q0 oyakodon"))
  }
}

/// Writes the `compare` cases `Scripts/check-trec-eval.sh` hands to trec_eval, into
/// `$MENUDECK_TREC_EXPORT/cli`: the strategies' TREC files and per-diner values at
/// `--k 1,3,5,10` on the bundled log, and a `--run` file with tied scores, docs no catalog
/// holds, diners it leaves out and queries that are no diner, with menudeck's values for it.
/// Runs only when MENUDECK_TREC_EXPORT names a directory.
@Suite(
  "TrecEvalExportCLI",
  .enabled(if: ProcessInfo.processInfo.environment["MENUDECK_TREC_EXPORT"] != nil))
struct TrecEvalExportCLI {
  @Test func export() throws {
    let work = ProcessInfo.processInfo.environment["MENUDECK_TREC_EXPORT"]! + "/cli"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    func write(_ name: String, _ bytes: [UInt8]) throws {
      try Data(bytes).write(to: URL(fileURLWithPath: work + "/" + name))
    }
    let common = [
      "compare", "--split", "2026-11-24", "--k", "1,3,5,10", "--resamples", "10", "--format",
      "json",
    ]
    let log = CLITest.repoRoot + "/Data/swipes.jsonl"
    let strategies = CLIRun(
      common + [
        "-s", "popularity", "-s", "affinity", "--trec", work + "/trec", "--per-diner",
        work + "/strategies.csv", log,
      ])
    #expect(strategies.code == .success, "\(strategies.stderr)")
    try write("strategies.json", strategies.stdoutBytes)

    // The judged diners and their relevant dishes, from the qrels just written.
    var relevant: [String: [String]] = [:]
    var judged: [String] = []
    let qrels = try String(contentsOfFile: work + "/trec/qrels.txt", encoding: .utf8)
    for line in qrels.split(separator: "\n") {
      let f = line.split(separator: " ").map(String.init)
      if relevant[f[0]] == nil {
        judged.append(f[0])
        relevant[f[0]] = []
      }
      if f[3] == "1" { relevant[f[0]]!.append(f[2]) }
    }
    let catalog = try #require(
      (try JSONSerialization.jsonObject(with: Data(CLITest.repoFile("Data/catalog.json")))
        as? [String: Any])?["items"] as? [[String: Any]])
    let dishes = catalog.compactMap { $0["id"] as? String } + ["not-a-dish-1", "not-a-dish-2"]
    var state: UInt64 = 20_261_202
    func next(_ below: Int) -> Int {
      // SplitMix64.
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Int((z ^ (z >> 31)) % UInt64(below))
    }
    var run = ""
    for (i, diner) in judged.enumerated() where i % 9 != 0 {
      var pool = dishes
      var docs: [String] = []
      // Up to 12 docs (the deck size below, so that none is cut), often a relevant one.
      for _ in 0..<next(13) {
        let wanted = relevant[diner]!.filter { !docs.contains($0) }
        let doc: String
        if !wanted.isEmpty && next(3) == 0 {
          doc = wanted[next(wanted.count)]
        } else {
          doc = pool[next(pool.count)]
        }
        pool.removeAll { $0 == doc }
        if !docs.contains(doc) { docs.append(doc) }
      }
      for (rank, doc) in docs.enumerated() {
        // Few distinct scores: ties, which trec_eval breaks by doc id, descending.
        let score = ["1", "2", "2.5", "3"][next(4)]
        run += "\(diner) Q0 \(doc) \(rank + 1) \(score) ext\n"
      }
    }
    for ghost in 1...3 { run += "ghost-\(ghost) Q0 \(dishes[ghost]) 1 1 ext\n" }
    try write("ext.run", Array(run.utf8))
    let external = CLIRun(
      common + [
        "-s", "popularity", "--size", "12", "--run", work + "/ext.run", "--per-diner",
        work + "/run.csv", log,
      ])
    #expect(external.code == .success, "\(external.stderr)")
    try write("run.json", external.stdoutBytes)
  }
}
