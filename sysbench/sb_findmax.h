#ifndef SB_FINDMAX_H
#define SB_FINDMAX_H
#endif
