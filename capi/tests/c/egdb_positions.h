/*
 * egdb_positions.h - every placement of a material, in a fixed order, in
 * the bit layout of Kingsrow's driver (square s on bit (s-1) + (s-1)/10).
 * Shared by the C and C++ sweeps of the egdb interface; the Rust test
 * (capi/tests/egdb.rs) walks the same order to compare their answers.
 *
 * Order: White's men (squares 6-50), White's kings (1-50), Black's men
 * (1-45), Black's kings (1-50); within each group the squares increase,
 * and the last group varies fastest. Squares already taken are skipped.
 */
#ifndef EGDB_POSITIONS_H
#define EGDB_POSITIONS_H

#include <stdint.h>

/* Pieces of each group: White's men, White's kings, Black's men, Black's kings. */
typedef struct {
    int count[4];
} sweep_material;

typedef void (*sweep_visit)(void *ctx, uint64_t white, uint64_t black, uint64_t king);

static inline uint64_t sweep_bit(int square) {
    int s = square - 1;
    return (uint64_t)1 << (s + s / 10);
}

/* A name such as "KKM-K" (White's pieces, then Black's). 0 on success. */
static inline int sweep_parse(const char *name, sweep_material *m) {
    int side = 0;
    for (int i = 0; i < 4; ++i)
        m->count[i] = 0;
    for (const char *c = name; *c; ++c) {
        if (*c == '-' && side == 0)
            side = 2;
        else if (*c == 'M')
            m->count[side] += 1;
        else if (*c == 'K')
            m->count[side + 1] += 1;
        else
            return -1;
    }
    return side == 2 ? 0 : -1;
}

static const int sweep_first[4] = {6, 1, 1, 1};
static const int sweep_last[4] = {50, 50, 45, 50};

typedef struct {
    const sweep_material *m;
    sweep_visit visit;
    void *ctx;
} sweep_walk;

static void sweep_place(const sweep_walk *w, int group, int from, int left, uint64_t white,
                        uint64_t black, uint64_t king) {
    if (group == 4) {
        w->visit(w->ctx, white, black, king);
        return;
    }
    if (left == 0) {
        int next = group + 1;
        sweep_place(w, next, next < 4 ? sweep_first[next] : 0, next < 4 ? w->m->count[next] : 0,
                    white, black, king);
        return;
    }
    for (int s = from; s <= sweep_last[group]; ++s) {
        uint64_t b = sweep_bit(s);
        if ((white | black) & b)
            continue;
        uint64_t is_king = (group == 1 || group == 3) ? b : 0;
        if (group < 2)
            sweep_place(w, group, s + 1, left - 1, white | b, black, king | is_king);
        else
            sweep_place(w, group, s + 1, left - 1, white, black | b, king | is_king);
    }
}

/* Calls visit(ctx, white, black, king) for every placement of `m`. */
static inline void sweep_material_positions(const sweep_material *m, sweep_visit visit, void *ctx) {
    sweep_walk w = {m, visit, ctx};
    sweep_place(&w, 0, sweep_first[0], m->count[0], 0, 0, 0);
}

#endif /* EGDB_POSITIONS_H */
