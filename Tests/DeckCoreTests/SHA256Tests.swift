import Testing

@testable import DeckCore

@Suite("SHA-256")
struct SHA256Tests {
  @Test(
    "FIPS 180 test vectors",
    arguments: SHA256ImplementationTests.vectors)
  func vectors(message: String, digest: String) {
    #expect(SHA256.hexDigest(of: message) == digest)
    #expect(SHA256.hex(SHA256.hash(Array(message.utf8))) == digest)
  }

  @Test("one million 'a'")
  func millionA() {
    var h = SHA256()
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 { h.update(bytes: chunk) }
    #expect(h.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    let whole = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(SHA256.hex(SHA256.hash(whole)) == h.hexDigest())
  }

  @Test(
    "padding boundaries",
    arguments: [
      (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
      (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
      (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
      (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
      (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
      (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
      (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
      (128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"),
    ])
  func paddingBoundaries(count: Int, digest: String) {
    let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: count)
    #expect(SHA256.hex(SHA256.hash(bytes)) == digest)
  }

  @Test(
    "incremental updates give the same digest whatever the split",
    arguments: [1, 3, 63, 64, 65, 100])
  func incremental(chunk: Int) {
    let message = Array(
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
        .utf8)
    var h = SHA256()
    var i = 0
    while i < message.count {
      h.update(bytes: message[i..<min(i + chunk, message.count)])
      i += chunk
    }
    #expect(h.hexDigest() == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
  }

  @Test("finalize does not consume: more bytes may follow")
  func finalizeIsRepeatable() {
    var h = SHA256()
    h.update("ab")
    #expect(h.hexDigest() == SHA256.hexDigest(of: "ab"))
    #expect(h.finalize() == h.finalize())
    h.update("c")
    #expect(h.hexDigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(h.finalize().count == 32)
  }

  @Test("non-contiguous collections and multi-byte UTF-8")
  func otherInputs() {
    var h = SHA256()
    h.update(bytes: "abc".utf8.lazy.map { $0 })
    #expect(h.hexDigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      SHA256.hexDigest(of: "献立🍱")
        == "bdb2e2102d48d6e11d00069acb8403e0536a2914053ffc5e26558b64c4dff541")
  }

  @Test("hex")
  func hex() {
    #expect(SHA256.hex([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
    #expect(SHA256.hex([UInt8]()) == "")
  }
}
