// The fuzz targets through an ordinary build, for the test loop: every input file replayed,
// then, with `--mutations N`, N inputs made from them by a seeded generator (byte flips,
// insertions, deletions, splices of two inputs). A crash stops the process, so the caller
// sees it; the seed and the round are printed first, so `--seed S --mutations N` replays it.
// Long coverage-guided runs with AddressSanitizer stay with libFuzzer (scripts/fuzz).

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum ReplayAndMutate {
    /// `[--seed S] [--mutations N] FILE...`
    static func main(_ arguments: [String]) {
        var seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var mutations = 0
        var files: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--seed": seed = rest.popFirst().flatMap { UInt64($0) } ?? seed
            case "--mutations": mutations = rest.popFirst().flatMap { Int($0) } ?? 0
            default: files.append(argument)
            }
        }
        let inputs = files.compactMap { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } }
        for input in inputs { run(input) }
        print("replayed \(inputs.count) inputs")
        guard mutations > 0, !inputs.isEmpty else { return }
        print("mutating with --seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for _ in 0..<mutations {
            run(mutate(inputs, with: &generator))
        }
        print("ran \(mutations) mutated inputs")
    }

    static func run(_ input: [UInt8]) {
        input.withUnsafeBytes { _ = fuzz($0.baseAddress, $0.count) }
    }

    /// One input changed one to eight times (at most 4,096 bytes, libFuzzer's `-max_len` here).
    static func mutate(_ inputs: [[UInt8]], with generator: inout SplitMix64) -> [UInt8] {
        var bytes = inputs[generator.below(inputs.count)]
        for _ in 0...generator.below(8) {
            switch generator.below(5) {
            case 0 where !bytes.isEmpty: bytes[generator.below(bytes.count)] ^= UInt8(1 << generator.below(8))
            case 1: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: generator.below(bytes.count + 1))
            case 2 where !bytes.isEmpty: bytes.remove(at: generator.below(bytes.count))
            case 3 where !bytes.isEmpty: bytes[generator.below(bytes.count)] = interesting[generator.below(interesting.count)]
            default:
                let other = inputs[generator.below(inputs.count)]
                let cut = generator.below(bytes.count + 1)
                bytes = Array(bytes[..<cut]) + other[generator.below(other.count + 1)...]
            }
        }
        return Array(bytes.prefix(4_096))
    }

    /// Bytes parsers treat specially: separators, escapes, line ends, NUL and the high bit.
    static let interesting: [UInt8] = Array(" %/?&=:;,.\"\\\r\n\t{}[]#@+-_~".utf8) + [0, 0x7f, 0x80, 0xff]
}

/// A small seeded generator (SplitMix64), so a failing pass can be replayed from its seed.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
