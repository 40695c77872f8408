import DeckCore

/// The SHA-256 of an input's bytes as the run header and `--verbose` show it (hex).
package enum ContentHash {
  package static func sha256(_ bytes: [UInt8]) -> String { SHA256.hex(SHA256.hash(bytes)) }
}
