import DeckCore
import DeckStrategies
import Foundation
import Testing

@Suite("Strategy registry and options")
struct RegistryTests {
  /// Every built-in, in registry order.
  static let all = [
    "random", "popularity", "affinity", "thompson", "ucb", "epsilon-greedy", "itemknn", "blend",
    "diversify",
    "plackett-luce", "als", "ease", "linucb", "lints",
  ]
  static let valid = "valid strategies: " + all.joined(separator: ", ")

  @Test("the built-ins are registered in order, with unique identifiers")
  func identifiers() {
    #expect(StrategyRegistry.identifiers == Self.all)
    #expect(StrategyRegistry.description(of: "affinity")?.identifier == "affinity")
    #expect(StrategyRegistry.description(of: "Affinity") == nil)
  }

  @Test("an unknown strategy lists the valid ones and suggests the closest")
  func unknownStrategy() {
    #expect(
      message { _ = try StrategyRegistry.make("popularty") }
        == "unknown strategy 'popularty' (did you mean 'popularity'?); \(Self.valid)")
    #expect(
      message { _ = try StrategyRegistry.make("collaborative") }
        == "unknown strategy 'collaborative'; \(Self.valid)")
    #expect(throws: StrategyError.unknownStrategy("", known: Self.all)) {
      _ = try StrategyRegistry.make("")
    }
  }

  @Test("an unknown option names the key and lists the valid keys")
  func unknownOption() {
    #expect(
      message { _ = try StrategyRegistry.make("affinity", options: ["prior_strenght": "3"]) }
        == "strategy 'affinity' has no option 'prior_strenght' (did you mean 'prior_strength'?); "
        + "valid options: weight_popularity, prior_strength, weight_tags, prior, prior_likes, "
        + "prior_passes"
    )
    #expect(
      message { _ = try StrategyRegistry.make("popularity", options: ["priorLikes": "2"]) }
        == "strategy 'popularity' has no option 'priorLikes' (did you mean 'prior_likes'?); "
        + "valid options: prior, prior_likes, prior_passes, per")
    #expect(
      message { _ = try StrategyRegistry.make("random", options: ["seed": "1"]) }
        == "strategy 'random' has no option 'seed'; it takes no options")
  }

  static let badValues: [(String, String, String, String)] = [
    ("popularity", "prior_likes", "abc", "is not a number; give a number from 0.0 to 1000000.0"),
    ("popularity", "prior_likes", "-0.5", "is out of range: give a number from 0.0 to 1000000.0"),
    (
      "popularity", "prior_passes", "1000000.5",
      "is out of range: give a number from 0.0 to 1000000.0"
    ),
    (
      "popularity", "prior_passes", "nan",
      "is not a finite number; give a number from 0.0 to 1000000.0"
    ),
    (
      "popularity", "prior_passes", "inf",
      "is not a finite number; give a number from 0.0 to 1000000.0"
    ),
    ("popularity", "prior_passes", "", "is not a number; give a number from 0.0 to 1000000.0"),
    ("affinity", "weight_popularity", "1.01", "is out of range: give a number from 0.0 to 1.0"),
    ("affinity", "weight_popularity", "-0.01", "is out of range: give a number from 0.0 to 1.0"),
    ("affinity", "weight_tags", "half", "is not a number; give a number from 0.0 to 1.0"),
    ("affinity", "prior_strength", "-1", "is out of range: give a number from 0.0 to 1000000.0"),
  ]

  @Test(
    "an ill-typed or out-of-range value names the key, the value and what is expected",
    arguments: badValues)
  func badValue(_ strategy: String, _ key: String, _ value: String, _ problem: String) {
    #expect(
      message { _ = try StrategyRegistry.make(strategy, options: [key: value]) }
        == "strategy '\(strategy)' option '\(key)': '\(value)' \(problem)")
  }

  static let goodValues: [(String, String, String)] = [
    ("popularity", "prior_likes", "0"),
    ("popularity", "prior_likes", "1000000"),
    ("popularity", "prior_passes", "0.25"),
    ("affinity", "weight_popularity", "0"),
    ("affinity", "weight_popularity", "1"),
    ("affinity", "weight_tags", "1.0"),
    ("affinity", "prior_strength", "0"),
  ]

  @Test("values at the ends of their ranges are accepted", arguments: goodValues)
  func goodValue(_ strategy: String, _ key: String, _ value: String) throws {
    let made = try StrategyRegistry.make(strategy, options: [key: value])
    #expect(type(of: made).description.identifier == strategy)
    let description = try #require(StrategyRegistry.description(of: strategy))
    let options = try StrategyOptions(raw: [key: value], for: description)
    #expect(options.double(key) == Double(value))
  }

  @Test(
    "a prior with no weight at all is rejected (a dish never shown would score 0/0)",
    arguments: ["popularity", "affinity"])
  func emptyPrior(_ strategy: String) throws {
    #expect(
      message {
        _ = try StrategyRegistry.make(strategy, options: ["prior_likes": "0", "prior_passes": "0"])
      }
        == "strategy '\(strategy)' option 'prior_passes': '0.0' is not above 0 when prior_likes "
        + "is 0 (a dish never shown would score 0/0)")
    _ = try StrategyRegistry.make(strategy, options: ["prior_likes": "0", "prior_passes": "0.001"])
    _ = try StrategyRegistry.make(strategy, options: ["prior_likes": "0.001", "prior_passes": "0"])
  }

  @Test("descriptions follow one convention: lowercase ids, snake_case options, valid defaults")
  func conventions() throws {
    for type in StrategyRegistry.builtins {
      let d = type.description
      #expect(d.identifier.wholeMatch(of: /[a-z][a-z0-9-]*/) != nil, "\(d.identifier)")
      #expect(!d.summary.isEmpty && !d.summary.contains("\n") && d.summary.count <= 100)
      #expect(Set(d.options.map(\.name)).count == d.options.count)
      for o in d.options {
        #expect(o.name.wholeMatch(of: /[a-z][a-z0-9]*(_[a-z0-9]+)*/) != nil, "\(o.name)")
        #expect(!o.meaning.isEmpty && !o.meaning.contains("\n"))
        switch (o.type, o.defaultValue) {
        case (.double, .double(let v)):
          #expect(o.range.map { $0.contains(v) } ?? true, "\(d.identifier).\(o.name)")
        case (.int, .int(let v)):
          #expect(o.range.map { $0.contains(Double(v)) } ?? true, "\(d.identifier).\(o.name)")
        case (.bool, .bool), (.string, .string):
          #expect(o.range == nil)
        default:
          Issue.record("\(d.identifier).\(o.name): default \(o.defaultValue) is not a \(o.type)")
        }
      }
      // The defaults, spelled out, are accepted and give the same options as none at all (but
      // for the options whose mere presence changes another's default, as prior_likes makes the
      // prior fixed).
      let implying = Set(d.options.flatMap { $0.implied?.keys ?? [] })
      let spelled = Dictionary(
        uniqueKeysWithValues: d.options.filter { !implying.contains($0.name) }.map {
          ($0.name, "\($0.defaultValue)")
        })
      #expect(
        try StrategyOptions(raw: spelled, for: d).all.map { "\($0)=\($1)" }
          == StrategyOptions(raw: [:], for: d).all.map { "\($0)=\($1)" })
    }
  }

  static let coverageCases: [(String, String)] = [
    ("popularity", "popularity"), ("affinity", "affinity"), ("thompson", "thompson"),
    ("ucb", "ucb"), ("epsilon-greedy", "epsilon-greedy"), ("itemknn", "itemknn"),
    ("blend", "blend': component 'affinity"), ("diversify", "diversify': component 'popularity"),
    ("plackett-luce", "plackett-luce': component 'popularity"), ("als", "als"),
  ]

  @Test("a history built for another catalog is refused at learn", arguments: coverageCases)
  func coverage(_ identifier: String, _ named: String) throws {
    let f = try fixture(items: ["a:soup", "b:rice"])
    let strategy = try StrategyRegistry.make(identifier)
    #expect(
      message { try strategy.learn(catalog: f.catalog, history: History(itemCount: 3)) }
        == "strategy '\(named)': the history covers 3 items but the catalog has 2; "
        + "build the history from this catalog")
  }

  /// Like SwiftLint's generated test lists: every `*Strategy.swift` source file (other than the
  /// protocol file) declares its strategy type, and that type is registered; so is every type that
  /// conforms to `BuiltinStrategy` anywhere in the module.
  @Test("every strategy source file is registered")
  func everyFileRegistered() throws {
    let sources = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Sources/DeckStrategies")
    let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
    let registered = Set(StrategyRegistry.builtins.map { String(describing: $0) })
    let strategyFiles = files.filter {
      $0.hasSuffix("Strategy.swift") && $0 != "RankingStrategy.swift"
    }
    #expect(strategyFiles.count >= 3, "found \(strategyFiles) in \(sources.path)")
    for file in strategyFiles {
      let typeName = String(file.dropLast(".swift".count))
      let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
      #expect(text.contains("class \(typeName): BuiltinStrategy"), "\(file) declares \(typeName)")
      #expect(
        registered.contains(typeName), "\(typeName) (\(file)) is not in StrategyRegistry.builtins")
    }
    var conforming: [String] = []
    for file in files where file.hasSuffix(".swift") {
      let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
      for match in text.matches(of: /(?:class|struct)\s+(\w+)\s*:[^{]*\bBuiltinStrategy\b/) {
        conforming.append(String(match.1))
      }
    }
    #expect(Set(conforming) == registered)
    #expect(conforming.count == registered.count)
  }
}
