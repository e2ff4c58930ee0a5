import Escaping
import TextBasics
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// ``CSVWriter/RecordBytes``: a CSV record written at once into a stack buffer (see
// ``CSVWriter/record(capacity:_:)`` in CSV.swift).

extension CSVWriter {
    /// The fields of one record, written into ``record(capacity:_:)``'s buffer. Each
    /// field writes the bytes the field-by-field method of the same name writes; a
    /// field that does not fit sets ``fits`` to false.
    public struct RecordBytes: CSVFieldSink, ~Copyable {
        private let buf: UnsafeMutableBufferPointer<UInt8>
        private let neutraliseFormulas: Bool
        private(set) var count = 0
        /// False once a field did not fit: the record must be written another way.
        public private(set) var fits = true
        private var inRecord = false

        init(_ buf: UnsafeMutableBufferPointer<UInt8>, neutraliseFormulas: Bool) {
            self.buf = buf
            self.neutraliseFormulas = neutraliseFormulas
        }

        private mutating func put(_ b: UInt8) {
            guard count < buf.count else { fits = false; return }
            buf[count] = b
            count += 1
        }

        private mutating func put(_ b: UnsafeBufferPointer<UInt8>) {
            guard b.count <= buf.count - count else { fits = false; return }
            if let base = b.baseAddress { ByteWriting.copySmall(base, to: buf.baseAddress! + count, count: b.count) }
            count += b.count
        }


        private mutating func separate() {
            if inRecord { put(0x2C) }
            inRecord = true
        }

        /// ``CSVWriter/emptyField()``.
        public mutating func emptyField() { separate() }

        /// ``CSVWriter/numberField(_:)-(Int)``.
        public mutating func numberField(_ i: Int) {
            separate()
            appendDigits(i)
        }

        /// ``CSVWriter/numberField(_:)-(Double)`` for a whole number and for whole
        /// hundredths or thousandths (nearly every `Double` of the study's tables), their
        /// digits written in as the writer writes them; any other value gives up the
        /// record (`fits` false), so the writer's own path writes it (`CSVFieldBytesTests`).
        public mutating func numberField(_ d: Double) {
            if abs(d) < 9_007_199_254_740_992, Double(Int64(d)) == d { return numberField(Int(d)) }
            let k: Int64, places: Int
            if let h = DecimalText.exactHundredths(d) {
                k = h; places = 2
            } else if let t = DecimalText.exactThousandths(d) {
                k = t; places = 3
            } else {
                fits = false
                return
            }
            separate()
            DecimalText.withFixed(k, places: places) { put($0) }
        }

        /// ``CSVWriter/appendDigits(_:)``: with room for any `Int` (21 bytes), its digits
        /// are counted first and written last one first into their places, with no check
        /// per digit and nothing turned around (`appendDigitsOneByOne` is the plain twin,
        /// and the path of a nearly full buffer).
        public mutating func appendDigits(_ i: Int) {
            guard buf.count - count >= 21 else { return appendDigitsOneByOne(i) }
            count += ByteWriting.writeDecimal(i, to: buf.baseAddress! + count)
        }

        /// ``appendDigits(_:)`` a digit at a time, each checked against the buffer's end
        /// (the path of a nearly full buffer; the tests' twin of the fast one).
        mutating func appendDigitsOneByOne(_ i: Int) {
            if i < 0 { put(0x2D) }
            var v = i.magnitude
            let start = count
            repeat {
                put(0x30 + UInt8(v % 10))
                v /= 10
            } while v > 0 && fits
            if fits {
                var digits = UnsafeMutableBufferPointer(rebasing: buf[start..<count])
                digits.reverse()
            }
        }

        /// ``CSVWriter/appendToField(_:)``.
        public mutating func appendToField(_ byte: UInt8) { put(byte) }

        /// ``CSVWriter/encodedField(_:)``.
        public mutating func encodedField(_ encoded: UnsafeBufferPointer<UInt8>) {
            separate()
            put(encoded)
        }

        /// ``CSVWriter/plainField(_:)-(StaticString)``.
        public mutating func plainField(_ word: StaticString) {
            assert(
                FieldShape(scanning: word.description, neutraliseFormulas: true).isPlain,
                "not a plain CSV field: \(word)")
            separate()
            word.withUTF8Buffer { put($0) }
        }

        /// ``CSVWriter/textField(_:)`` for a field written as it is (no quotes, no
        /// `'`, nothing replaced: ``FieldShape/plain(_:neutraliseFormulas:)``); any
        /// other text gives up the record (`fits` false).
        /// The text's bytes are read where they are (`utf8.withContiguousStorageIfAvailable`:
        /// no copy of the `String`, so no retain and release of it per field); a text
        /// without such storage gives up the record too.
        public mutating func textField(_ raw: String) {
            separate()
            let neutralise = neutraliseFormulas
            let written = raw.utf8.withContiguousStorageIfAvailable { b -> Bool in
                guard let shape = FieldShape.plain(b, neutraliseFormulas: neutralise),
                      !shape.needsQuotes && !shape.neutralise else { return false }
                put(b)
                return true
            }
            if written != true { fits = false }
        }

        /// ``CSVWriter/endRecord()``.
        public mutating func endRecord() {
            put(0x0D); put(0x0A)
            inRecord = false
        }
    }
}

extension CSVWriter {
    /// Whether ``textField(_:)`` writes the text of these UTF-8 bytes as they are (no
    /// quotes, no `'`, nothing replaced): ``FieldShape/plain(_:neutraliseFormulas:)``'s
    /// rule, inlined into a writer in another module (raw.csv's `RawCSVBuffer` in
    /// DossierKit) so a text field costs no call. The empty text is written as it is.
    @inlinable public static func writesAsItIs(_ b: UnsafeBufferPointer<UInt8>, neutraliseFormulas: Bool) -> Bool {
        guard let f = b.first, let l = b.last else { return true }
        for c in b where FieldShape.mayMatter(c) { return false }
        if neutraliseFormulas && (f == 0x3D || f == 0x2B || f == 0x2D || f == 0x40) { return false }
        return f != 0x20 && l != 0x20
    }
}
