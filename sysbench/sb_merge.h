#ifndef SB_MERGE_H
#define SB_MERGE_H
#endif
