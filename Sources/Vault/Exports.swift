// The password strength estimator lives in its own module (`Strength`) so the vault and
// the SMS keystore judge master passwords the same way; vault users see it as before.
@_exported import Strength
