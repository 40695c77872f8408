/// What went wrong with an external plugin. Every fault names the plugin and the request it was
/// answering; the plugin process has been ended (SIGTERM, then SIGKILL) and reaped by the time a
/// fault is thrown.
///
/// `PluginStrategy` (module DeckPlugins) throws it wrapped as `StrategyError.plugin` and keeps the
/// typed fault in `PluginStrategy.fault` as well. It lives here, beside `StrategyError`, because
/// that error names it; the plugin host sits above this module.
package struct PluginFault: Error, Equatable, Sendable, CustomStringConvertible {
  package enum Kind: String, Equatable, Sendable {
    /// The executable does not exist, is not a file, or is not executable; or it could not start.
    case notStartable = "not-startable"
    /// The process exited (any status) before answering, or closed its stdout.
    case exitedEarly = "exited-early"
    /// The process was killed by a signal while running.
    case crashed
    /// No complete answer within the per-request timeout.
    case timedOut = "timed-out"
    /// A reply line is not JSON, not the expected message, or speaks another protocol version;
    /// or a field has the wrong type, or is one the plugin's minor version or the request does
    /// not allow (a `policy` unasked).
    case malformed
    /// A reply has the wrong number of results, scores, order entries, propensities or logits,
    /// or a `rankings` policy more orders or ids than menudeck reads.
    case wrongCount = "wrong-count"
    /// An order (of a result or of a policy) names an item that is not a candidate, or one
    /// twice; or a `rankings` policy gives an order twice.
    case badItem = "bad-item"
    /// A number is NaN, infinite or out of its range: a score or logit not finite, a
    /// propensity or probability outside 0...1, a prefix propensity outside (0, 1] or above
    /// the one before it or its card's propensity, probabilities summing above 1.
    case nonFinite = "non-finite"
    /// The plugin answered with an `error` message.
    case reported
  }

  package let kind: Kind
  /// The configured name of the plugin (e.g. "veg-first").
  package let plugin: String
  /// The request being answered, e.g. "rank request 3 (512 diners, 'u1' to 'u512')".
  package let request: String
  /// What happened and what to do, lowercase, without the plugin's name.
  package let message: String

  package init(_ kind: Kind, plugin: String, request: String, message: String) {
    self.kind = kind
    self.plugin = plugin
    self.request = request
    self.message = message
  }

  /// "plugin 'veg-first', rank request 3 (...): message".
  package var description: String { "plugin '\(plugin)', \(request): \(message)" }

  /// The fault as the strategy layer's error.
  package var strategyError: StrategyError { .plugin(self) }
}
