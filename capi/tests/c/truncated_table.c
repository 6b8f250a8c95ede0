/*
 * A table cut short and then rewritten in place while libdtb has it mapped:
 * the process must survive, report the damaged table, keep answering from
 * the other tables, and answer from the new content once it is valid again.
 *
 * Usage: truncated_table DIR TABLE_FILE FEN_FIRST FEN_FAR FEN_OTHER [pread]
 * Prints one line per step; the test checks them. With the tables mapped
 * it installs the SIGBUS guard first (the library takes no signal handler
 * unasked); with "pread" it opens them with DTB_STORAGE_PREAD, which never
 * maps them, and installs nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dtb.h"

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static char *read_all(const char *path, long n) {
    FILE *f = fopen(path, "rb");
    char *buf = malloc((size_t)n);
    if (!f || !buf || fread(buf, 1, (size_t)n, f) != (size_t)n) return NULL;
    fclose(f);
    return buf;
}

static void probe(const dtb_tablebase *tb, const char *step, const char *fen) {
    int wdl = 9;
    int rc = dtb_probe_wdl_fen(tb, fen, DTB_PLIES_FRESH, &wdl);
    printf("%s rc=%d wdl=%d\n", step, rc, rc == DTB_OK ? wdl : 9);
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) return 2;
    int pread_storage = argc == 7;
    /* The library takes no signal by itself: a program that maps tables
     * asks for the guard, so that a cut in the middle of a read is an
     * error too. Positioned reads need none. */
    if (!pread_storage && dtb_install_sigbus_guard() != 1) return 7;
    const char *table = argv[2];
    dtb_tablebase *tb = pread_storage
        ? dtb_open_with(argv[1], DTB_RULES_FMJD, 0, DTB_STORAGE_PREAD)
        : dtb_open(argv[1], DTB_RULES_FMJD, 0);
    if (!tb) return 3;
    long n = file_size(table);
    char *original = read_all(table, n);
    if (!original) return 4;
    probe(tb, "before", argv[3]);
    if (truncate(table, n / 3) != 0) return 5;       /* cut short in place */
    probe(tb, "truncated", argv[4]);
    probe(tb, "other", argv[5]);
    FILE *f = fopen(table, "r+b");                   /* rewritten in place */
    if (!f || fwrite(original, 1, (size_t)n, f) != (size_t)n) return 6;
    fclose(f);
    probe(tb, "rewritten", argv[4]);
    free(original);
    printf("closed rc=%d\n", dtb_close(tb));
    return 0;
}
