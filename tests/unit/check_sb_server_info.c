/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_server_info: the rule that leaves settings out, the
 * record's JSON, and the binary's identity (GNU build id of a crafted ELF
 * file, SHA-256 against FIPS 180-4's examples).
 */
#include <check.h>
#include <elf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_json_write.h"
#include "results/sb_server_info.h"

START_TEST(test_rule)
{
    static const char *const skipped[] = {
        "pid_file", "server_uuid", "timestamp", "gtid_binlog_pos", "gtid_current_pos",
        "gtid_slave_pos", "gtid_binlog_state", "wsrep_start_position", "report_password",
        "ssl_passphrase_command", "gtid_executed",
    };
    static const char *const kept[] = {
        "innodb_flush_log_at_trx_commit", "synchronous_commit", "server_id", "gtid_domain_id",
        "gtid_strict_mode", "shared_buffers", "port", "datadir", "sync_binlog",
    };

    for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
        ck_assert_msg(sb_server_setting_skipped(skipped[i]), "%s kept", skipped[i]);
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        ck_assert_msg(!sb_server_setting_skipped(kept[i]), "%s skipped", kept[i]);
}
END_TEST

START_TEST(test_json)
{
    struct sb_server_info si;
    struct sb_json j;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    memset(&si, 0, sizeof(si));
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(sb_server_info_add(&si, "sync_binlog", "0"), 0);
    ck_assert_int_eq(sb_server_info_add(&si, "pid_file", "/run/x.pid"), 0);
    ck_assert_int_eq(sb_server_info_add(&si, "innodb_flush_log_at_trx_commit", "2"), 0);
    sb_server_info_sort(&si);
    si.have_settings = true;
    snprintf(si.binary_path, sizeof(si.binary_path), "/usr/sbin/mariadbd");
    snprintf(si.build_id, sizeof(si.build_id), "abcd");
    ck_assert(sb_server_info_known(&si));
    sb_json_init(&j, f, false);
    sb_server_info_json(&j, &si);
    ck_assert_int_eq(sb_json_finish(&j), 0);
    fclose(f);
    ck_assert_str_eq(text, "{\"settings\":{\"innodb_flush_log_at_trx_commit\":\"2\","
                           "\"sync_binlog\":\"0\"},\"settings_skipped\":1,\"binary\":"
                           "{\"path\":\"/usr/sbin/mariadbd\",\"build_id\":\"abcd\","
                           "\"sha256\":null}}\n");
    free(text);
    sb_server_info_free(&si);
    ck_assert(!sb_server_info_known(&si));
}
END_TEST

START_TEST(test_first_diff)
{
    struct sb_server_info a, b;
    char buf[512];

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.have_settings = b.have_settings = true;
    ck_assert_int_eq(sb_server_info_add(&a, "sync_binlog", "0"), 0);
    ck_assert_int_eq(sb_server_info_add(&a, "innodb_flush_log_at_trx_commit", "1"), 0);
    ck_assert_int_eq(sb_server_info_add(&b, "innodb_flush_log_at_trx_commit", "1"), 0);
    ck_assert_int_eq(sb_server_info_add(&b, "sync_binlog", "0"), 0);
    sb_server_info_sort(&a);
    sb_server_info_sort(&b);
    ck_assert(!sb_server_info_first_diff(&a, &b, buf, sizeof(buf)));
    ck_assert_str_eq(buf, "");
    free(b.settings[0].value);
    b.settings[0].value = strdup("2");
    ck_assert(sb_server_info_first_diff(&a, &b, buf, sizeof(buf)));
    ck_assert_str_eq(buf, "innodb_flush_log_at_trx_commit (1 -> 2)");
    ck_assert_int_eq(sb_server_info_add(&b, "zz_new", "x"), 0);
    free(b.settings[0].value);
    b.settings[0].value = strdup("1");
    ck_assert(sb_server_info_first_diff(&a, &b, buf, sizeof(buf)));
    ck_assert_str_eq(buf, "zz_new (absent -> x)");
    b.nsettings--; /* zz_new is last: dropped from the comparison */
    snprintf(a.binary_path, sizeof(a.binary_path), "/usr/sbin/mariadbd");
    snprintf(b.binary_path, sizeof(b.binary_path), "/usr/sbin/mariadbd");
    snprintf(a.build_id, sizeof(a.build_id), "aa");
    snprintf(b.build_id, sizeof(b.build_id), "bb");
    ck_assert(sb_server_info_first_diff(&a, &b, buf, sizeof(buf)));
    ck_assert_str_eq(buf, "binary");
    b.nsettings++;
    sb_server_info_free(&a);
    sb_server_info_free(&b);
}
END_TEST

/* A file holding len bytes of p, rewound. */
static FILE *file_of(const void *p, size_t len)
{
    FILE *f = tmpfile();

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, len, f), len);
    rewind(f);
    return f;
}

/* An ELF file with two notes: an ABI tag, then the build id (the search
 * skips the first). */
struct fake_elf {
    Elf64_Ehdr eh;
    Elf64_Phdr ph[2];
    uint32_t tag[4 + 4];
    uint32_t id_hdr[3];
    char id_name[4];
    unsigned char id[20];
};

START_TEST(test_build_id)
{
    struct fake_elf elf;
    char hex[129];
    FILE *f;

    memset(&elf, 0, sizeof(elf));
    memcpy(elf.eh.e_ident, ELFMAG, SELFMAG);
    elf.eh.e_ident[EI_CLASS] = ELFCLASS64;
    elf.eh.e_phoff = offsetof(struct fake_elf, ph);
    elf.eh.e_phentsize = sizeof(Elf64_Phdr);
    elf.eh.e_phnum = 2;
    elf.ph[0].p_type = PT_LOAD;
    elf.ph[1].p_type = PT_NOTE;
    elf.ph[1].p_offset = offsetof(struct fake_elf, tag);
    elf.ph[1].p_filesz = sizeof(elf) - offsetof(struct fake_elf, tag);
    elf.tag[0] = 4;  /* namesz */
    elf.tag[1] = 16; /* descsz */
    elf.tag[2] = 1;  /* NT_GNU_ABI_TAG */
    memcpy(&elf.tag[3], "GNU", 4);
    elf.id_hdr[0] = 4;
    elf.id_hdr[1] = sizeof(elf.id);
    elf.id_hdr[2] = NT_GNU_BUILD_ID;
    memcpy(elf.id_name, "GNU", 4);
    for (size_t i = 0; i < sizeof(elf.id); i++)
        elf.id[i] = (unsigned char)(0x10 + i);
    f = file_of(&elf, sizeof(elf));
    ck_assert(sb_server_info_build_id(f, hex, sizeof(hex)));
    ck_assert_str_eq(hex, "101112131415161718191a1b1c1d1e1f20212223");
    fclose(f);
    /* Not an ELF file: no build id. */
    f = file_of("#!/bin/sh\necho hello\n", 21);
    ck_assert(!sb_server_info_build_id(f, hex, sizeof(hex)));
    fclose(f);
}
END_TEST

static void check_sha(const void *p, size_t len, const char *want)
{
    char out[65];
    FILE *f = file_of(p, len);

    ck_assert(sb_server_info_sha256(f, out));
    ck_assert_str_eq(out, want);
    fclose(f);
}

START_TEST(test_sha256)
{
    char *big = malloc(1000000);

    ck_assert_ptr_nonnull(big);
    check_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* 56 bytes: the length no longer fits the first block's padding. */
    check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    memset(big, 'a', 1000000);
    check_sha(big, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(big);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_server_info");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_rule);
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_first_diff);
    tcase_add_test(tc, test_build_id);
    tcase_add_test(tc, test_sha256);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
