import Foundation
import Testing

/// What Scripts/spark-recipe.py needs: java, the menudeck binary and a python with pyspark
/// ($MENUDECK_SPARK_PYTHON, else the venv that `Scripts/spark-recipe.py --install` makes). The
/// tests never install anything.
enum SparkRecipe {
  static let python: String? = {
    let environment = ProcessInfo.processInfo.environment
    let venv = environment["SPARK_VENV"] ?? "/tmp/menudeck-spark-venv"
    let candidate = environment["MENUDECK_SPARK_PYTHON"] ?? venv + "/bin/python"
    return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
  }()

  static let javaFound: Bool = {
    let environment = ProcessInfo.processInfo.environment
    if let home = environment["JAVA_HOME"],
      FileManager.default.isExecutableFile(atPath: home + "/bin/java")
    {
      return true
    }
    let path = environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/java")
    }
  }()

  /// `python -c 'import pyspark'` exits 0.
  static let pysparkImportable: Bool = {
    guard let python else { return false }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["-c", "import pyspark"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }()

  static var available: Bool {
    MenudeckBinary.path != nil && javaFound && pysparkImportable
  }
}

/// The Spark recipe end to end on `local[*]`: ingest per partition, merge, decks per shard, and
/// `--check` against the one-machine run.
@Suite(
  .enabled(
    if: SparkRecipe.available,
    "java, menudeck or pyspark missing ($MENUDECK_SPARK_PYTHON; spark-recipe.py --install)"
  ))
struct CLISparkRecipeTests {
  /// A CSV log (with its header) of `swipes` swipes by `diners` diners on the bundled catalog's
  /// dishes, in November 2026, from a fixed linear congruential sequence; returns the diners
  /// that swiped.
  static func log(at path: String, swipes: Int, diners: Int) throws -> Set<String> {
    let catalog = try #require(
      try JSONSerialization.jsonObject(with: Data(CLITest.repoFile("Data/catalog.json")))
        as? [String: Any])
    let items = try #require(catalog["items"] as? [[String: Any]]).compactMap {
      $0["id"] as? String
    }
    try #require(!items.isEmpty)
    var state: UInt64 = 14
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    var text = "user,item,swipe,at\n"
    var seen = Set<String>()
    for _ in 0..<swipes {
      let user = "g" + String(format: "%05d", next(diners))
      seen.insert(user)
      let at = String(
        format: "2026-11-%02dT%02d:%02d:%02dZ", 1 + next(28), next(24), next(60), next(60))
      let swipe = next(4) == 0 ? "right" : "left"
      text += "\(user),\(items[next(items.count)]),\(swipe),\(at)\n"
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return seen
  }

  /// The bundled users file's ids.
  static func bundledUsers() throws -> Set<String> {
    let file = try #require(
      try JSONSerialization.jsonObject(with: Data(CLITest.repoFile("Data/users.json")))
        as? [String: Any])
    return Set(try #require(file["users"] as? [[String: Any]]).compactMap { $0["id"] as? String })
  }

  @Test func fourPartitionsFourShardsEqualTheOneMachineRun() throws {
    let dir = try TempDir("menudeck-spark")
    let log = dir.file("log.csv")
    let diners = try Self.log(at: log, swipes: 20_000, diners: 2_000).union(Self.bundledUsers())
    let out = dir.file("out")

    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(SparkRecipe.python))
    process.arguments = [
      CLITest.repoRoot + "/Scripts/spark-recipe.py", "--menudeck",
      try #require(MenudeckBinary.path), "--config", CLITest.repoRoot + "/Config/menudeck.json",
      "--log", log, "--date", "2026-12-01", "--partitions", "4", "--shards", "4", "--out", out,
      "--check", "--master", "local[2]",
    ]
    process.currentDirectoryURL = URL(fileURLWithPath: dir.path)
    for name in ["stdout", "stderr"] {
      _ = FileManager.default.createFile(atPath: dir.file(name), contents: nil)
    }
    process.standardOutput = try FileHandle(forWritingTo: dir.url("stdout"))
    process.standardError = try FileHandle(forWritingTo: dir.url("stderr"))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let stdout = try dir.read("stdout")
    let stderr = try dir.read("stderr")

    #expect(process.terminationStatus == 0, "\(stdout)\n\(stderr.suffix(4000))")
    let pass = stdout.split(separator: "\n").first { $0.hasPrefix("PASS: ") }
    #expect(
      pass?.hasPrefix("PASS: \(diners.count) decks from 4 shards (4 ingest partitions)") == true,
      "\(stdout)")
    #expect(!stdout.contains("FAIL"), "\(stdout)")
    // decks.jsonl: every diner once, in shard order; the merged snapshot beside it.
    let decks = try String(
      decoding: Data(contentsOf: URL(fileURLWithPath: out + "/decks.jsonl")), as: UTF8.self)
    #expect(decks.split(separator: "\n").count == diners.count)
    #expect(FileManager.default.fileExists(atPath: out + "/merged.snap"))
  }
}
