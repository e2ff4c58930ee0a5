// The Foundation every file of the `dossier` executable uses, named once here instead of
// at the top of each command file: on Linux the ICU-free FoundationEssentials with Glibc
// (the start-up test fails when the binary links ICU), elsewhere the full Foundation.
// `@_exported` makes these imports reach every file of this module.
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
@_exported import Glibc
#else
@_exported import Foundation
#endif
