// egdb_example: an engine's use of Kingsrow's egdb_intl driver, unchanged,
// answered by draughts-tb's tables (link with libdtb; see docs/engines.md,
// "Engines written for Kingsrow's driver").
//
//   egdb_example DIR FEN [FEN...]
//
// DIR is a rule set's folder (data/pure) or the folder above it (data).
// For each position (PDN FEN without ranges, e.g. "W:WK46,28:BK5") prints
//   FEN <tab> VALUE <tab> mtc=M
// where VALUE is win, loss, draw or unknown for the side to move, and M
// the MTC value (where the .dtc files are there, else "-").
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "egdb_intl.h"

using namespace egdb_interface;

namespace {

void msg_fn(char const *msg) { std::fprintf(stderr, "%s", msg); }

EGDB_BITBOARD square_bit(int square) {
    int s = square - 1;
    return EGDB_BITBOARD(1) << (s + s / 10);
}

// The engine's own FEN reader: "W:W31,K28:B1,K12". Returns false on a
// malformed string.
bool parse_fen(char const *fen, EGDB_POSITION *pos, int *color) {
    pos->black = pos->white = pos->king = 0;
    if (fen[0] != 'W' && fen[0] != 'B')
        return false;
    *color = fen[0] == 'W' ? EGDB_WHITE : EGDB_BLACK;
    EGDB_BITBOARD *side = nullptr;
    for (char const *c = fen + 1; *c;) {
        if (*c == ':' && (c[1] == 'W' || c[1] == 'B')) {
            side = c[1] == 'W' ? &pos->white : &pos->black;
            c += 2;
            continue;
        }
        if (*c == ',') {
            ++c;
            continue;
        }
        bool king = *c == 'K';
        if (king)
            ++c;
        if (!side || !std::isdigit(static_cast<unsigned char>(*c)))
            return false;
        int square = std::atoi(c);
        if (square < 1 || square > 50)
            return false;
        while (std::isdigit(static_cast<unsigned char>(*c)))
            ++c;
        *side |= square_bit(square);
        if (king)
            pos->king |= square_bit(square);
    }
    return true;
}

int popcount(EGDB_BITBOARD b) {
    int n = 0;
    for (; b; b &= b - 1)
        ++n;
    return n;
}

char const *value_name(int value) {
    switch (value) {
    case EGDB_WIN:
        return "win";
    case EGDB_LOSS:
        return "loss";
    case EGDB_DRAW:
        return "draw";
    default:
        return "unknown";
    }
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s DIR FEN [FEN...]\n", argv[0]);
        return 2;
    }
    char const *dir = argv[1];
    EGDB_TYPE type;
    int max_pieces;
    if (egdb_identify(dir, &type, &max_pieces)) {
        std::fprintf(stderr, "no endgame database in %s\n", dir);
        return 1;
    }
    // As an engine opens Kingsrow's WLD database: all pieces found, a
    // cache for the search.
    EGDB_DRIVER *wld = egdb_open("", 256, dir, msg_fn);
    if (!wld)
        return 1;
    egdb_get_pieces(wld, &max_pieces, nullptr, nullptr, nullptr);
    // The MTC database, for the moves at the root (it needs .dtc files).
    EGDB_DRIVER *mtc = egdb_open("db=mtc", 0, dir, msg_fn);

    for (int i = 2; i < argc; ++i) {
        EGDB_POSITION pos;
        int color;
        if (!parse_fen(argv[i], &pos, &color)) {
            std::printf("%s\tbad fen\n", argv[i]);
            continue;
        }
        int value = EGDB_UNKNOWN;
        if (popcount(pos.black | pos.white) <= max_pieces) {
            // Deep in a search an engine asks only for what is cached ...
            value = egdb_lookup(wld, &pos, color, 1);
            // ... and near the root it lets the driver read the disk.
            if (value == EGDB_NOT_IN_CACHE)
                value = egdb_lookup(wld, &pos, color, 0);
        }
        std::printf("%s\t%s\t", argv[i], value_name(value));
        if (mtc)
            std::printf("mtc=%d\n", egdb_lookup(mtc, &pos, color, 0));
        else
            std::printf("mtc=-\n");
    }
    EGDB_STATS *stats = egdb_get_stats(wld);
    std::printf("requests=%u returns=%u\n", stats->db_requests, stats->db_returns);
    if (mtc)
        egdb_close(mtc);
    return egdb_close(wld);
}
