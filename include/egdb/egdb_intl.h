/*
 * egdb/egdb_intl.h - for engines that include Kingsrow's driver header by
 * this path: the same as <egdb_intl.h> (draughts-tb's interface of that
 * driver, in namespace egdb_interface).
 */
#include "../egdb_intl.h"
