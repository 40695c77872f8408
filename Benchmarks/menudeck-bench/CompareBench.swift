import DeckCommandLine
import DeckCore
import DeckEvaluation
import Foundation
import MenuDeckCLI

/// `menudeck compare` at scale, and the bootstrap on its own.
///
/// - compare: 10,000 simulated diners x 30 days x 5 strategies (2,000 diners with `quick`) on
///   the bundled catalog, with a baseline and 1,000 resamples, through the CLI's own `run`;
///   against the baseline of `menudeck simulate` on the same work (the same five simulations
///   without intervals), measured in the same run.
/// - bootstrap: 1,000 resamples and 1,000 permutations over 100,000 diners x 2 strategies x 16
///   metrics (a synthetic unit table), against one pass that computes the point estimates.
///
/// Both report wall-clock seconds (the resampling runs on every core) and CPU seconds.
enum CompareBench {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  static func timed(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    let w0 = Clock.now()
    let c0 = Clock.cpuNow()
    try body()
    return (Clock.now() - w0, Clock.cpuNow() - c0)
  }

  static func cli(_ arguments: [String]) throws {
    let (io, _, err) = CLIStreams.capturing(stdin: [], currentDirectory: repoRoot)
    let code = run(arguments, io)
    guard code == .success else {
      throw NSError(
        domain: "menudeck-bench", code: 1,
        userInfo: [NSLocalizedDescriptionKey: "\(arguments.first ?? "") failed: \(err.text)"])
    }
  }

  /// RESULT line of the compare phase.
  static func compareLine(quick: Bool, dir: String) throws -> String {
    let users = quick ? 2_000 : 10_000
    let common = [
      "--catalog", "Data/catalog.json", "--users", String(users), "--days", "30",
      "--start", "2026-11-01", "--seed", "7", "-s", "random", "-s", "popularity", "-s",
      "affinity", "-s", "thompson", "-s", "itemknn",
    ]
    let simulate = try timed {
      try cli(["simulate"] + common + ["--format", "json", "--out", dir + "/simulate.json"])
    }
    let compare = try timed {
      try cli(
        ["compare"] + common + [
          "--baseline", "random", "--resamples", "1000", "--format", "json", "--out",
          dir + "/compare.json",
        ])
    }
    return
      "RESULT users=\(users) simwall=\(simulate.wall) simcpu=\(simulate.cpu) wall=\(compare.wall) cpu=\(compare.cpu) peak=\(Clock.peakMemoryMiB())"
  }

  /// RESULT line of the bootstrap phase.
  static func bootstrapLine(units: Int) -> String {
    let metrics = 16
    var stream = RandomStream(seed: 1)
    let arms = (0..<2).map { a in
      var arm = ArmUnits(arm: "arm\(a)", units: units, metrics: metrics)
      for u in 0..<units {
        for m in 0..<metrics {
          let shown = Double(1 + stream.nextInt(below: 20))
          arm.add(
            unit: u, metric: m, numerator: Double(stream.nextInt(below: Int(shown) + 1)),
            denominator: shown)
        }
      }
      return arm
    }
    let table = UnitTable(
      metrics: (0..<metrics).map { MetricSpec(name: "m\($0)", definition: "", form: .ratio) },
      units: (0..<units).map { "u\($0)" }, arms: arms)
    var point = 0.0
    let pass = timed {
      for a in 0..<2 { for m in 0..<metrics { point += table.value(arm: a, metric: m) ?? 0 } }
    }
    var width = 0.0
    let resampled = timed {
      let (summaries, _) = Resampling.analyze(
        table, baseline: 0, options: ResamplingOptions(resamples: 1000, seed: 3))
      width = (summaries[1].estimates[0].upper ?? 0) - (summaries[1].estimates[0].lower ?? 0)
    }
    precondition(point.isFinite && width > 0)
    return
      "RESULT units=\(units) passwall=\(pass.wall) wall=\(resampled.wall) cpu=\(resampled.cpu) peak=\(Clock.peakMemoryMiB())"
  }

  static func report(compare c: [String: Double], bootstrap b: [String: Double]) {
    print(
      "Compare: \(Int(c["users"] ?? 0)) simulated diners x 30 days x 5 strategies, baseline random, 1000 resamples"
    )
    print(
      "  compare            \(fmt(c["wall"] ?? 0, 2)) s wall, \(fmt(c["cpu"] ?? 0, 2)) s CPU   peak \(fmt(c["peak"] ?? 0, 0)) MiB"
    )
    print(
      "  simulate, same work \(fmt(c["simwall"] ?? 0, 2)) s wall: compare costs x\(fmt((c["wall"] ?? 0) / max(c["simwall"] ?? 1, 1e-9), 2)) of the simulation alone"
    )
    print(
      "Bootstrap: \(Int(b["units"] ?? 0)) diners x 2 strategies x 16 metrics, 1000 resamples + 1000 permutations"
    )
    print(
      "  resample           \(fmt(b["wall"] ?? 0, 2)) s wall, \(fmt(b["cpu"] ?? 0, 2)) s CPU   peak \(fmt(b["peak"] ?? 0, 0)) MiB"
    )
    let perResample = (b["wall"] ?? 0) / 2000
    print(
      "  per resample or permutation \(fmt(perResample * 1000, 2)) ms wall, against \(fmt((b["passwall"] ?? 0) * 1000, 1)) ms for one pass of the point estimates (x\(fmt(perResample / max(b["passwall"] ?? 1, 1e-9), 3)))"
    )
  }
}
