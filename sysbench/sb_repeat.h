#ifndef SB_REPEAT_H
#define SB_REPEAT_H
#endif
