import Foundation
import Testing

/// `compare --trec DIR` writes `DIR/train.csv`: the training swipes as the strategies learned
/// them, so that reference implementations (Scripts/check-baselines.py) train on the same ones.
@Suite struct CLICompareTrainTests {
  /// A foreign ratings log: one neutral rating (no event), one dish outside the catalog, and
  /// events on both sides of 2024-01-01 (Unix seconds; the bundled config's zone is Asia/Tokyo).
  static let ratings = """
    u,i,t,r
    d1,oyakodon,1700000000,5
    d1,gyudon,1700086400,1
    d1,katsudon,1700090000,3
    d2,tendon,1700100000,4.5
    d2,no-such-dish,1700100100,5
    d1,kaisendon,1710000000,5
    d2,unadon,1710000100,4
    d2,butadon,1710000200,2
    d3,soboro-don,1710000300,5

    """

  static let config = CLITest.repoRoot + "/Config/menudeck.json"

  @Test func aTemporalSplitExportsExactlyTheMappedEventsBeforeTheDate() throws {
    let dir = try TempDir()
    let log = try dir.write("ratings.csv", Self.ratings)
    let r = dir.run([
      "compare", "--config", Self.config, "-s", "popularity", "-s", "random", "--split",
      "2024-01-01", "--columns", "user=u,item=i,at=t,rating=r", "--right", "rating>=4", "--left",
      "rating<=2", "--resamples", "10", "--format", "json", "--trec", dir.file("trec"), log,
    ])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(try dir.names() == ["ratings.csv", "trec"])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir.file("trec")).sorted() == [
        "popularity.run", "qrels.txt", "random.run", "train.csv",
      ])
    // The neutral rating is no swipe, the unknown dish is left out, and nothing from the
    // split date on trains; the times carry the zone's offset, as every log menudeck writes.
    #expect(
      try dir.read("trec/train.csv") == """
        user,item,swipe,at,position,deck,propensity,prefix_propensity
        d1,oyakodon,right,2023-11-15T07:13:20+09:00,,,,
        d1,gyudon,left,2023-11-16T07:13:20+09:00,,,,
        d2,tendon,right,2023-11-16T11:00:00+09:00,,,,

        """)
    let json = try #require(try r.json() as? [String: Any])
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(parameters["training_events"] as? Int == 3)
    // The exported log is itself a swipe log menudeck reads, with the same three events.
    let check = dir.run([
      "validate", "--config", Self.config, "--history", dir.file("trec/train.csv"), "--format",
      "json",
    ])
    #expect(check.code == .success, "\(check.stderr)")
    #expect(check.stdout.contains("3 swipes (2 right, 1 left)"), "\(check.stdout)")
  }

  @Test func aHoldOutExportsExactlyThePairsThatAreNotHeldOut() throws {
    let dir = try TempDir()
    // More diners and dishes, so that a 0.5 hold-out leaves events on both sides; no times.
    let dishes = ["oyakodon", "gyudon", "katsudon", "tendon", "kaisendon", "unadon", "butadon"]
    var text = "u,i,r\n"
    var all: [(String, String, String)] = []
    for d in 1...12 {
      for (n, dish) in dishes.enumerated() where (d + n) % 3 != 0 {
        let rating = (d * 7 + n * 3) % 5 + 1
        text += "d\(d),\(dish),\(rating)\n"
        if rating >= 4 { all.append(("d\(d)", dish, "right")) }
        if rating <= 2 { all.append(("d\(d)", dish, "left")) }
      }
    }
    let log = try dir.write("ratings.csv", text)
    let r = dir.run([
      "compare", "--config", Self.config, "-s", "popularity", "-s", "random", "--holdout", "0.5",
      "--columns", "user=u,item=i,rating=r", "--right", "rating>=4", "--left", "rating<=2",
      "--resamples",
      "10", "--format", "json", "--trec", dir.file("trec"), log,
    ])
    #expect(r.code == .success, "\(r.stderr)")
    let rows = try dir.read("trec/train.csv").split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    #expect(
      rows.first == [
        "user", "item", "swipe", "at", "position", "deck", "propensity",
        "prefix_propensity",
      ])
    let training = rows.dropFirst().map { ($0[0], $0[1], $0[2]) }
    // Untimed events are read at 1970-01-01T00:00 local time, and so written.
    #expect(rows.dropFirst().allSatisfy { $0[3] == "1970-01-01T00:00:00+09:00" })
    let json = try #require(try r.json() as? [String: Any])
    let parameters = try #require(json["parameters"] as? [String: Any])
    let trained = try #require(parameters["training_events"] as? Int)
    let evaluated = try #require(parameters["evaluation_events"] as? Int)
    #expect(trained > 0 && evaluated > 0)
    #expect(training.count == trained)
    // Every training row is an event of the log, in the log's order, and the events left out
    // are exactly the evaluated ones: none of their pairs trains.
    let key = { (e: (String, String, String)) in "\(e.0) \(e.1) \(e.2)" }
    let trainingKeys = training.map(key)
    let kept = all.map(key).filter { trainingKeys.contains($0) }
    #expect(kept == trainingKeys)
    #expect(all.count - training.count == evaluated)
    let qrels = try dir.read("trec/qrels.txt").split(separator: "\n").map {
      $0.split(separator: " ").map(String.init)
    }
    #expect(!qrels.isEmpty)
    let trainingPairs = Set(training.map { "\($0.0) \($0.1)" })
    for q in qrels { #expect(!trainingPairs.contains("\(q[0]) \(q[2])"), "\(q)") }
  }

  @Test func withoutTrecNothingIsWritten() throws {
    let dir = try TempDir()
    let log = try dir.write("ratings.csv", Self.ratings)
    let r = dir.run([
      "compare", "--config", Self.config, "-s", "popularity", "-s", "random", "--split",
      "2024-01-01", "--columns", "user=u,item=i,at=t,rating=r", "--right", "rating>=4", "--left",
      "rating<=2", "--resamples", "10", log,
    ])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(try dir.names() == ["ratings.csv"])
  }
}
