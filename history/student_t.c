/* student_t.c - the Student t-test's p-value (student_t.h). */
#include "history/student_t.h"

#include <math.h>

/* The continued fraction of I_x(a, b), evaluated by Lentz's method; it
 * converges fast for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 10000; m++) {
        /* the even step, then the odd step of the fraction */
        double num = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 + num * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + num / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 + num * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + num / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        double step = d * c;
        h *= step;
        if (fabs(step - 1.0) < eps)
            break;
    }
    return h;
}

double kb_incomplete_beta(double a, double b, double x)
{
    if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
        return NAN;
    if (x == 0 || x == 1)
        return x;
    /* x^a (1-x)^b / (a B(a, b)), through logarithms */
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
                       b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_fraction(a, b, x) / a;
    /* the symmetry I_x(a, b) = 1 - I_{1-x}(b, a), where the fraction of
     * the other side converges */
    return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double kb_student_t_two_sided(double t, double df)
{
    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return 0.0;
    return kb_incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double kb_student_t_test(double m1, double s1, long n1, double m2, double s2,
                         long n2)
{
    if (n1 < 1 || n2 < 1 || n1 + n2 <= 2)
        return 1.0;
    double df = (double)(n1 + n2 - 2);
    double pooled = ((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / df;
    double se = sqrt(pooled * (1.0 / n1 + 1.0 / n2));
    if (se == 0)
        return m1 == m2 ? 1.0 : 0.0;
    return kb_student_t_two_sided((m1 - m2) / se, df);
}
