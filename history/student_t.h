/* student_t.h - the two-sided Student t-test from summary statistics (the
 * test Otava's merge step uses), with the t distribution's tail from the
 * regularized incomplete beta function. */
#ifndef KB_STUDENT_T_H
#define KB_STUDENT_T_H

/* I_x(a, b), the regularized incomplete beta function, for a, b > 0 and
 * x in [0, 1] (Lentz's continued fraction, to 1e-15 relative).  NAN for
 * arguments outside those ranges.  Can't fail otherwise. */
double kb_incomplete_beta(double a, double b, double x);

/* P(|T| >= |t|) for T with df degrees of freedom (df > 0).  NAN when t or
 * df is NAN or df <= 0. */
double kb_student_t_two_sided(double t, double df);

/* The pooled-variance (equal variances) two-sample t-test of means m1, m2
 * with standard deviations s1, s2 (sample, n-1) over n1, n2 values: the
 * two-sided p-value, as SciPy's ttest_ind_from_stats(equal_var=True).
 * With n1 + n2 <= 2 there are no degrees of freedom: 1.  When both sides
 * have no spread: 1 for equal means, 0 for different ones. */
double kb_student_t_test(double m1, double s1, long n1, double m2, double s2,
                         long n2);

#endif
