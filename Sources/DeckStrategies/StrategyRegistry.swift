/// The built-in strategies, fixed at compile time. Adding a strategy = one file + one line here
/// (a test fails when a strategy file is not registered).
package enum StrategyRegistry {
  package static var builtins: [any BuiltinStrategy.Type] {
    [
      RandomStrategy.self, PopularityStrategy.self, AffinityStrategy.self, ThompsonStrategy.self,
      UCBStrategy.self, EpsilonGreedyStrategy.self, ItemKNNStrategy.self, BlendStrategy.self,
      DiversifyStrategy.self, PlackettLuceStrategy.self, ALSStrategy.self, EASEStrategy.self,
      LinUCBStrategy.self, LinTSStrategy.self,
    ]
  }

  package static var identifiers: [String] { builtins.map { $0.description.identifier } }

  package static func description(of identifier: String) -> StrategyDescription? {
    builtins.first { $0.description.identifier == identifier }?.description
  }

  /// Creates a built-in from raw options; unknown names and options are errors listing the valid
  /// ones.
  package static func make(_ identifier: String, options raw: [String: String] = [:])
    throws(StrategyError) -> any BuiltinStrategy
  {
    guard let type = builtins.first(where: { $0.description.identifier == identifier }) else {
      throw .unknownStrategy(identifier, known: identifiers)
    }
    let options = try StrategyOptions(raw: raw, for: type.description)
    return try type.init(options: options)
  }
}
