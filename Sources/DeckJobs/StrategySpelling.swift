import DeckBase
import DeckStrategies

/// A strategy named with options of its own: `NAME:key=value,key=value`, wherever a strategy is
/// named (`deck --strategy`, `play`, `simulate -s`, `compare -s`, `--fallback`, `tune -s`, the
/// config's "strategy"). NAME is a built-in or a named configuration; the options go over its
/// own (and over `--option`, which applies to every strategy of a run). The whole spelling names
/// the arm in reports, TREC runs and run headers, so that two variants of one strategy are two
/// arms.
///
/// A value holding a comma is quoted: `blend:components="affinity:0.6,popularity:0.4"`
/// (inside the quotes `\"` is a quote and `\\` a backslash). A spelling holds no white space:
/// it is a TREC run's tag, one field of a whitespace-separated line.
package struct StrategySpelling: Equatable {
  /// The built-in or named configuration the options apply to.
  package var base: String
  /// The options in the order written.
  package var options: [(key: String, value: String)]

  package init(base: String, options: [(key: String, value: String)]) {
    self.base = base
    self.options = options
  }

  package static func == (a: StrategySpelling, b: StrategySpelling) -> Bool {
    a.base == b.base && a.options.elementsEqual(b.options) { $0 == $1 }
  }

  /// Whether `text` is written as a variant: a colon after a non-empty name.
  package static func isVariant(_ text: String) -> Bool {
    guard let colon = text.firstIndex(of: ":") else { return false }
    return colon != text.startIndex
  }

  /// Reads `text`, which `isVariant`.
  package static func parse(_ text: String) throws(StrategySpellingError) -> StrategySpelling {
    func fail(_ message: String) -> StrategySpellingError {
      StrategySpellingError(spelling: text, message: message)
    }
    if let space = text.unicodeScalars.first(where: { $0.properties.isWhitespace }) {
      let what = space == " " ? "a space" : "white space (\(byteName(space)))"
      throw fail(
        "holds \(what): a strategy's name is a field of TREC runs and reports; write it without"
          + " (quote a value that holds a comma: key=\"a,b\")")
    }
    guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
      throw fail("has no strategy name before ':'; write NAME:key=value,...")
    }
    let base = String(text[..<colon])
    let rest = Array(text[text.index(after: colon)...])
    guard !rest.isEmpty else {
      throw fail("gives no option after ':'; write \(base):key=value,... or just \(base)")
    }
    var options: [(key: String, value: String)] = []
    var i = 0
    while i < rest.count {
      var key = ""
      while i < rest.count, rest[i] != "=", rest[i] != "," {
        key.append(rest[i])
        i += 1
      }
      guard i < rest.count, rest[i] == "=" else {
        throw fail(
          key.isEmpty
            ? "has an empty option (two commas, or one at an end); write key=value,key=value"
            : "gives '\(key)' with no '=value'; write \(key)=VALUE")
      }
      guard !key.isEmpty else { throw fail("has '=' with no option name before it") }
      i += 1
      var value = ""
      if i < rest.count, rest[i] == "\"" {
        i += 1
        var closed = false
        while i < rest.count {
          let c = rest[i]
          i += 1
          if c == "\"" {
            closed = true
            break
          }
          if c == "\\" {
            guard i < rest.count, rest[i] == "\"" || rest[i] == "\\" else {
              throw fail(
                "has a backslash in the value of '\(key)' that escapes neither '\"' nor '\\'")
            }
            value.append(rest[i])
            i += 1
            continue
          }
          value.append(c)
        }
        guard closed else {
          throw fail("opens a quote in the value of '\(key)' and never closes it")
        }
        guard i == rest.count || rest[i] == "," else {
          throw fail("has characters after the closing quote of '\(key)'; put a comma there")
        }
      } else {
        while i < rest.count, rest[i] != "," {
          if rest[i] == "\"" {
            throw fail(
              "has a quote inside the value of '\(key)'; quote the whole value: \(key)=\"...\"")
          }
          value.append(rest[i])
          i += 1
        }
        guard !value.isEmpty else { throw fail("gives '\(key)=' with no value") }
      }
      if options.contains(where: { $0.key == key }) {
        throw fail("gives '\(key)' twice; give each option once")
      }
      options.append((key, value))
      if i < rest.count {
        // A comma: another option must follow.
        i += 1
        if i == rest.count {
          throw fail("ends with a comma; write key=value after it or remove it")
        }
      }
    }
    return StrategySpelling(base: base, options: options)
  }

  /// The spelling of `base` with `options` (in the order given): values that hold a comma, a
  /// quote or a backslash are quoted, so that `parse` reads them back.
  package static func spell(_ base: String, _ options: [(key: String, value: String)]) -> String {
    guard !options.isEmpty else { return base }
    return base + ":"
      + options.map { key, value in
        let needsQuotes = value.contains(",") || value.contains("\"") || value.contains("\\")
        guard needsQuotes else { return "\(key)=\(value)" }
        var quoted = "\""
        for c in value {
          if c == "\"" || c == "\\" { quoted.append("\\") }
          quoted.append(c)
        }
        return "\(key)=\(quoted)\""
      }.joined(separator: ",")
  }

  private static func byteName(_ scalar: Unicode.Scalar) -> String {
    switch scalar {
    case "\t": return "a tab"
    case "\n": return "a line feed"
    case "\r": return "a carriage return"
    default: return "U+" + String(scalar.value, radix: 16, uppercase: true)
    }
  }
}

/// A strategy spelling that cannot be read: the command line's usage error, the config's data
/// error.
package struct StrategySpellingError: Error, Equatable, CustomStringConvertible {
  package var spelling: String
  package var message: String

  package var description: String { "the strategy '\(spelling)' \(message)" }
}

extension NamedStrategy {
  /// `pairs` (the command line's `--option`s) over these options; the options of the spelling
  /// itself (`NAME:key=value`) stay over both.
  package mutating func override(with pairs: [(key: String, value: String)]) {
    for (key, value) in pairs { options[key] = value }
    for (key, value) in variant { options[key] = value }
  }
}

extension MenuDeckConfig {
  /// The configuration a strategy's spelling stands for: a named configuration of this config,
  /// a built-in, or either with options of its own (`NAME:key=value,...`, see
  /// `StrategySpelling`), named by the whole spelling. nil when the name is unknown; a variant
  /// that cannot be read is an error.
  package func resolveStrategy(_ spelling: String) throws(StrategySpellingError) -> NamedStrategy? {
    if let named = resolvePlain(spelling) { return named }
    guard StrategySpelling.isVariant(spelling) else { return nil }
    let variant = try StrategySpelling.parse(spelling)
    guard var named = resolvePlain(variant.base) else { return nil }
    named.name = spelling
    for (key, value) in variant.options {
      named.options[key] = value
      named.variant[key] = value
    }
    return named
  }

  /// A named configuration from this config, or a built-in with no options.
  private func resolvePlain(_ name: String) -> NamedStrategy? {
    if let named = strategies[name] { return named }
    if StrategyRegistry.description(of: name) != nil {
      return NamedStrategy(name: name, use: name, options: [:])
    }
    return nil
  }

  /// "unknown strategy 'x'; did you mean 'y'?; valid strategies: ...": for a variant, the name
  /// before its ':' is the one suggested for.
  package func unknownStrategy(_ spelling: String, role: String = "strategy") -> String {
    var name = spelling
    if StrategySpelling.isVariant(spelling), let colon = spelling.firstIndex(of: ":") {
      name = String(spelling[..<colon])
    }
    let shown = name == spelling ? "'\(spelling)'" : "'\(name)' (in '\(spelling)')"
    return "unknown \(role) \(shown)\(didYouMean(name, strategyNames)); valid strategies: "
      + strategyNames.joined(separator: ", ")
  }
}
