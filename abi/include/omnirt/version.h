/*
 * OmniRT C ABI — version numbers.
 *
 * The ABI is versioned major.minor. A minor release only appends (fields,
 * vtable slots, enum values, functions); a major release breaks. A host of
 * 1.x loads every plugin of 1.y, older or newer, using only what both know.
 * abi/CHANGELOG.md records every minor.
 */
#ifndef OMNIRT_VERSION_H_
#define OMNIRT_VERSION_H_

#include <stdint.h>

/** Major version of the ABI these headers describe. */
#define OMNIRT_ABI_VERSION_MAJOR 1
/** Minor version of the ABI these headers describe. */
#define OMNIRT_ABI_VERSION_MINOR 1

/** Packs major.minor into one uint32_t: major in the high 16 bits. */
#define OMNIRT_MAKE_VERSION(major, minor) \
  ((uint32_t)(((uint32_t)(major) << 16) | ((uint32_t)(minor) & 0xFFFFu)))
/** Major part of a packed version. */
#define OMNIRT_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
/** Minor part of a packed version. */
#define OMNIRT_VERSION_MINOR(v) ((uint32_t)(v) & 0xFFFFu)

/** The packed ABI version these headers describe. */
#define OMNIRT_ABI_VERSION \
  OMNIRT_MAKE_VERSION(OMNIRT_ABI_VERSION_MAJOR, OMNIRT_ABI_VERSION_MINOR)

#endif /* OMNIRT_VERSION_H_ */
