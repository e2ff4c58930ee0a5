// The system zlib: gzip inflation for KDBX payloads (Foundation has no gzip on Linux).
#include <zlib.h>
