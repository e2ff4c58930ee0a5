// Debian's libargon2 (libargon2-dev): Argon2d/Argon2id for KDBX 4 import and vaults.
#include <argon2.h>
