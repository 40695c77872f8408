import Testing

@testable import DeckCore

@Suite("Stable hash and random streams")
struct RandomTests {
  // Pinned values come from an independent implementation of FNV-1a 64 + the SplitMix64
  // finaliser, and of SplitMix64 seeding + xoshiro256**. A change in either algorithm changes
  // every deck: these tests must fail first.

  @Test(
    "StableHash pinned values",
    arguments: [
      ("", 0x5ba3_14b8_cfda_3b6b as UInt64), ("a", 0xfdc3_11da_32dd_e96d),
      ("menudeck", 0x4348_ee7b_4d37_ac39),
    ])
  func stableHash(text: String, expected: UInt64) {
    #expect(StableHash.hash(text) == expected)
  }

  @Test("StableHash length-terminates strings")
  func lengthTerminated() {
    var ab = StableHash()
    ab.combine("ab")
    ab.combine("c")
    var a = StableHash()
    a.combine("a")
    a.combine("bc")
    #expect(ab.finalized != a.finalized)
    #expect(StableHash.hash("ab") == 0x7ec0_7c13_a0f3_3ade)
    #expect(StableHash.hash("c") == 0xcba8_46df_87ec_e1fd)
  }

  @Test("first outputs for fixed seeds")
  func pinnedOutputs() {
    var r = RandomStream(seed: 42)
    #expect(
      (0..<5).map { _ in r.next() } == [
        0x1578_0b2e_0c2e_c716, 0x6104_d986_6d11_3a7e, 0xae17_5332_39e4_99a1, 0xecb8_ad47_03b3_60a1,
        0xfde6_dc7f_e2ec_5e64,
      ])
    var zero = RandomStream(seed: 0)
    #expect(
      (0..<3).map { _ in zero.next() } == [
        0x99ec_5f36_cb75_f2b4, 0xbf6e_1f78_4956_452a, 0x1a5f_849d_4933_e6e0,
      ])
  }

  @Test("pinned doubles, bounded ints and shuffle")
  func pinnedDerived() {
    var d = RandomStream(seed: 42)
    #expect(d.nextDouble() == 0.08386297105988216)
    #expect(d.nextDouble() == 0.3789802506626686)
    var i = RandomStream(seed: 42)
    #expect((0..<10).map { _ in i.nextInt(below: 10) } == [0, 3, 6, 9, 9, 7, 7, 8, 7, 5])
    var s = RandomStream(seed: 42)
    var a = Array(0..<10)
    s.shuffle(&a)
    #expect(a == [9, 1, 4, 2, 8, 7, 6, 5, 3, 0])
  }

  @Test("derived stream pinned for (seed, date, user)")
  func derivedPinned() throws {
    let date = try #require(DeckDate.parse("2026-11-29"))
    var r = RandomStream(seed: 7, date: date, user: "u1")
    #expect(r.next() == 0xe397_8d92_2e7b_edee)
    #expect(r.next() == 0x7744_7c27_d146_aba7)
  }

  @Test("same seed, same sequence; different seed, different sequence")
  func determinism() {
    var a = RandomStream(seed: 123)
    var b = RandomStream(seed: 123)
    var c = RandomStream(seed: 124)
    let xa = (0..<100).map { _ in a.next() }
    #expect(xa == (0..<100).map { _ in b.next() })
    #expect(xa != (0..<100).map { _ in c.next() })
  }

  @Test("derived streams differ per user, date, seed and purpose")
  func derivedDiffer() throws {
    let day = try #require(DeckDate.parse("2026-11-29"))
    func first(_ seed: UInt64, _ date: DeckDate, _ user: String, _ purpose: String = "deck")
      -> [UInt64]
    {
      var r = RandomStream(seed: seed, date: date, user: user, purpose: purpose)
      return (0..<4).map { _ in r.next() }
    }
    let base = first(1, day, "alice")
    #expect(base == first(1, day, "alice"))
    #expect(base != first(1, day, "bob"))
    #expect(base != first(1, day.adding(days: 1), "alice"))
    #expect(base != first(2, day, "alice"))
    #expect(base != first(1, day, "alice", "simulate"))
    #expect(first(1, day, "ab") != first(1, day, "abc"))
  }

  @Test(
    "nextInt(below:) stays in range", arguments: [1, 2, 3, 7, 10, 1000, Int(Int32.max), Int.max])
  func inRange(bound: Int) {
    var r = RandomStream(seed: UInt64(bound))
    for _ in 0..<2000 {
      let x = r.nextInt(below: bound)
      #expect(x >= 0 && x < bound)
    }
  }

  @Test("nextInt(below:) is roughly uniform")
  func uniform() {
    var r = RandomStream(seed: 2026)
    let bound = 6
    let n = 60_000
    var counts = [Int](repeating: 0, count: bound)
    for _ in 0..<n { counts[r.nextInt(below: bound)] += 1 }
    // Chi-square with 5 degrees of freedom; 20.5 is the 0.999 quantile.
    let expected = Double(n) / Double(bound)
    let chi2 = counts.reduce(0.0) {
      $0 + (Double($1) - expected) * (Double($1) - expected) / expected
    }
    #expect(chi2 < 20.5, "counts \(counts)")
  }

  @Test("nextDouble is in [0, 1)")
  func doubles() {
    var r = RandomStream(seed: 5)
    var sum = 0.0
    for _ in 0..<10_000 {
      let x = r.nextDouble()
      #expect(x >= 0 && x < 1)
      sum += x
    }
    #expect(abs(sum / 10_000 - 0.5) < 0.02)
  }

  @Test("shuffle is a permutation and depends on the seed", arguments: [0, 1, 2, 17, 100])
  func shuffle(count: Int) {
    var r = RandomStream(seed: 9)
    var a = Array(0..<count)
    r.shuffle(&a)
    #expect(a.sorted() == Array(0..<count))
    if count >= 17 {
      var other = RandomStream(seed: 10)
      var b = Array(0..<count)
      other.shuffle(&b)
      #expect(a != b)
      #expect(a != Array(0..<count))
    }
  }
}
