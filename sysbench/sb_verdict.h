#ifndef SB_VERDICT_H
#define SB_VERDICT_H
#endif
