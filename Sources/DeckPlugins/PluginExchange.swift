import DeckBase
import DeckCore
import DeckStrategies
import Foundation

/// One request and its reply line: the reply is read, parsed and checked before a strategy
/// looks at its contents.
extension PluginStrategy {
  /// Sends `bytes`, reads one reply line and checks its type. On any fault the process is
  /// stopped before the fault is thrown.
  static func exchange(
    _ process: PluginProcess, _ bytes: [UInt8], request: String, expect: String,
    _ c: Configuration
  ) throws(PluginFault) -> JSONValue {
    func fault(_ kind: PluginFault.Kind, _ message: String) -> PluginFault {
      process.stop(grace: killGrace)
      return PluginFault(kind, plugin: c.name, request: request, message: message)
    }
    switch process.exchange(bytes, deadline: monotonicSeconds() + c.timeout) {
    case .timedOut:
      throw fault(
        .timedOut,
        "no reply within \(seconds(c.timeout)) (the per-request timeout); the plugin was stopped. "
          + "Make it answer faster, send smaller batches, or raise the timeout")
    case .ended:
      let pending = process.pendingOutput
      let termination =
        process.waitForExit(deadline: monotonicSeconds() + killGrace)
        ?? process.stop(grace: killGrace)
      let partial = pending.isEmpty ? "" : " after writing \(quote(pending)) without a newline"
      let kind: PluginFault.Kind = termination.isSignal ? .crashed : .exitedEarly
      throw fault(kind, "\(termination) before replying\(partial); see its log above")
    case .line(let line):
      let reply: JSONValue
      do {
        reply = try PluginJSON.parse(line)
      } catch {
        throw fault(
          .malformed,
          "wrote malformed JSON (\(error.message) at byte \(error.offset + 1)): \(quote(line)); "
            + "stdout is for protocol lines only, log to stderr")
      }
      guard let type = reply["type"]?.stringValue else {
        throw fault(.malformed, "wrote a line without a 'type': \(quote(line))")
      }
      if type == "error" {
        let text = reply["message"]?.stringValue ?? "(no message)"
        throw fault(.reported, "reported an error: \(text)")
      }
      guard type == expect else {
        throw fault(.malformed, "replied '\(type)' where '\(expect)' was expected: \(quote(line))")
      }
      return reply
    }
  }
}

extension PluginProcess.Termination {
  var isSignal: Bool {
    if case .signaled = self { return true }
    return false
  }
}

/// The first bytes of a line, quoted, for messages.
func quote(_ bytes: [UInt8], limit: Int = 60) -> String {
  let head = String(decoding: bytes.prefix(limit), as: UTF8.self)
  var escaped = ""
  for scalar in head.unicodeScalars {
    switch scalar {
    case "\n": escaped += "\\n"
    case "\t": escaped += "\\t"
    case "'": escaped += "\\'"
    default:
      escaped += scalar.value < 0x20 ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
    }
  }
  return "'" + escaped + (bytes.count > limit ? "...'" : "'")
}

func seconds(_ s: Double) -> String {
  s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
}
