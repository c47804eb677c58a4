#include "config.h"
#include "kop.h"
/* placeholder until the collection layer lands */
int kop_placeholder_unused;
