// Compiled only with the game domain (Package.swift excludes GameCommand.swift otherwise).
#if DOMAIN_GAME
import ArgumentParser
import DossierKit
import GameAnalytics
import TextBasics

// `dossier game fit-exgauss|fit-logistic`: hidden commands the oracle tests compare with
// SciPy and scikit-learn (see GameCommand.swift for the visible ones).

// MARK: - Oracle helpers (hidden)

struct GameFitExGaussian: ParsableCommand {
    static let configuration = HelpText.command("game fit-exgauss", hidden: true)
    @Flag(help: "JSON output (the only format).") var json = false
    @OptionGroup var quiet: QuietFlag

    struct Output: Encodable {
        var mu, sigma, tau, logLikelihood: Double
        var n: Int
        var censored: Int
        var flags: [String]
        var moments: ExGaussianParams?
    }

    func run() throws {
        let text = String(decoding: try gameReadInput(nil), as: UTF8.self)
        var xs: [Double] = [], cs: [Double] = []
        // A value written ">c" is right-censored at c (a response slower than c).
        for (i, tok) in text.split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "," || $0 == "\t" || $0 == "\r" })
            .enumerated()
        {
            let censored = tok.hasPrefix(">")
            guard let d = Double(censored ? tok.dropFirst() : tok), d.isFinite else {
                throw DossierError(file: "<stdin>", "value \(i + 1) is not a number")
            }
            if censored { cs.append(d) } else { xs.append(d) }
        }
        guard let fit = ExGaussian.fit(xs, censoredAt: cs) else {
            throw DossierError(file: "<stdin>", "need at least \(ExGaussian.minimumN) values with some spread")
        }
        try gamePrintJSON(
            Output(
                mu: fit.params.mu, sigma: fit.params.sigma, tau: fit.params.tau,
                logLikelihood: fit.logLikelihood, n: fit.n, censored: fit.censored, flags: fit.flags,
                moments: fit.moments))
    }
}

struct GameFitLogistic: ParsableCommand {
    static let configuration = HelpText.command("game fit-logistic", hidden: true)
    @Flag(help: "JSON output (the only format).") var json = false
    @OptionGroup var quiet: QuietFlag
    @Option(name: .customLong("C"), help: "Inverse L2 penalty, as scikit-learn's C.") var C: Double = 1.0

    struct Output: Encodable {
        var intercept: Double
        var coefficients: [Double]
        var auc: Double?
        var means: [Double]
        var sds: [Double]
        var iterations: Int
    }

    func run() throws {
        let text = String(decoding: try gameReadInput(nil), as: UTF8.self)
        var rows: [[Double]] = [], labels: [Bool] = []
        for (i, line) in text.split(whereSeparator: \.isNewline).enumerated().dropFirst() {
            let f = line.split(separator: ",").map { Double($0.trimmingWhitespace()) }
            guard f.count >= 2, f.allSatisfy({ $0 != nil }), let y = f.last!, y == 0 || y == 1 else {
                throw DossierError(file: "<stdin>", line: i + 1, "expected numbers and a final 0/1 label")
            }
            rows.append(f.dropLast().map { $0! })
            labels.append(y == 1)
        }
        guard !rows.isEmpty, Set(rows.map(\.count)).count == 1 else {
            throw DossierError(file: "<stdin>", "no rows, or rows of different lengths")
        }
        let s = Standardizer(fitting: rows)
        let z = rows.map(s.apply)
        guard let m = LogisticModel.fit(rows: z, labels: labels, C: C) else {
            throw DossierError(file: "<stdin>", "the fit failed")
        }
        try gamePrintJSON(Output(intercept: m.intercept, coefficients: m.coefficients,
                             auc: ROC.auc(scores: z.map(m.probability), labels: labels),
                             means: s.means, sds: s.sds, iterations: m.iterations))
    }
}
#endif
