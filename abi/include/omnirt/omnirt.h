/*
 * OmniRT C ABI — umbrella header: the embedder API and the backend contract.
 */
#ifndef OMNIRT_OMNIRT_H_
#define OMNIRT_OMNIRT_H_

#include "omnirt/backend.h"
#include "omnirt/host.h"
#include "omnirt/status.h"
#include "omnirt/types.h"
#include "omnirt/version.h"

#endif /* OMNIRT_OMNIRT_H_ */
