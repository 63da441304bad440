/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replays fuzz inputs without libFuzzer: linked with one harness
 * (fuzz_NAME.c), it feeds every file named on the command line (a
 * directory: every regular file in it) to LLVMFuzzerTestOneInput once.
 * `make check` runs it over the committed seed corpus and regression
 * inputs (tests/fuzz/replay_tests.sh), so a crash that fuzzing once found
 * stays fixed in every build, sanitizers or not. Exit status: 0 when every
 * input ran, 1 when a file could not be read; a crash is a crash.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, r;

    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    do {
        if (len == cap) {
            uint8_t *grown = realloc(buf, cap = cap ? cap * 2 : 4096);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = grown;
        }
        r = fread(buf + len, 1, cap - len, f);
        len += r;
    } while (r > 0);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    printf("replayed %s (%zu bytes)\n", path, len);
    return 0;
}

static int replay_path(const char *path)
{
    struct stat st;
    struct dirent **names;
    int n, rc = 0;

    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return replay_file(path);
    n = scandir(path, &names, NULL, alphasort);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        char full[4096];

        if (names[i]->d_name[0] != '.') {
            snprintf(full, sizeof(full), "%s/%s", path, names[i]->d_name);
            if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && replay_file(full) != 0)
                rc = -1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;

    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i]) != 0)
            rc = 1;
    return rc;
}
